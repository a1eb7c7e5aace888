import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { graphError } from '../../../test/simulators/facebook/meta-graph-simulation.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { startThreadsSimulator, type ThreadsSimulator } from '../../../test/simulators/threads/threads-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createThreadsAdapter } from './adapter.ts';

const ada = '25000000000000001';
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2_000)]);
const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(100)]);

let threads: ThreadsSimulator;
let adapter: PlatformAdapter;
let files: Server;
let filesUrl = '';
const served = new Map<string, Buffer>();
/** How many times the simulated Threads fetched each file. */
const fetched = new Map<string, number>();
let token = '';

/** A file served over HTTP where the simulated Threads pulls it from, as SPS's uploads are. */
function media(
  name: string,
  bytes: Buffer,
  kind: 'image' | 'video',
  mimeType: string,
  alt: string | null = null,
): PublishMedia {
  served.set(`/${name}`, bytes);
  return {
    kind, mimeType, size: bytes.length, fileName: name, alt,
    url: `${filesUrl}/${name}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

function channel(accessToken = token): ChannelCredentials {
  return { channelId: 'c1', accessToken, instanceUrl: null };
}

type TestPart = PublishInput & { checkpoint: MemoryCheckpoint };

function part(content: string, extra: Partial<PublishInput> = {}): TestPart {
  const checkpoint = extra.checkpoint as MemoryCheckpoint | undefined ?? memoryCheckpoint();
  const idempotencyKey = `k-${content}`;
  return { channel: channel(), content, media: [], settings: {}, idempotencyKey, ...extra, checkpoint };
}

const requestsTo = (edge: string) => threads.received.filter((request) => request.path === `/v1.0/me/${edge}`);
const made = (text: string) => threads.publishing.threads.filter((thread) => thread.text === text);
const formOf = (text: string) => new URLSearchParams(text);
const addUser = (id: string, username: string) => {
  threads.addUser({ id, username, name: username, profilePictureUrl: 'https://cdn.example/p.jpg', biography: '' });
};

beforeAll(async () => {
  threads = await startThreadsSimulator();
  addUser(ada, 'ada');
  token = threads.tokenFor(ada);
  files = createServer((request, response) => {
    const path = request.url ?? '';
    const bytes = served.get(path);
    fetched.set(path, (fetched.get(path) ?? 0) + 1);
    if (bytes === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${String((files.address() as AddressInfo).port)}`;
  const polling = { firstWaitMs: 5, maxIntervalMs: 20, maxWaitMs: 2_000 };
  adapter = createThreadsAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, threads.app, polling);
});

afterAll(async () => {
  await threads.close();
  await new Promise<void>((resolve) => { files.close(() => { resolve(); }); });
});

beforeEach(() => {
  threads.publishing.videoPollsInProgress = 1;
});

describe('threads adapter: publishing', () => {
  it('publishes a text post with the post settings, saving the container before threads_publish', async () => {
    const settings = {
      reply_control: 'mentioned_only', topic_tag: 'Engines', link_attachment: 'https://example.com/a',
    };
    const input = part('Hello Threads', { settings });

    const result = await adapter.publish(input);

    const [thread] = made('Hello Threads');
    expect(thread).toMatchObject({
      mediaType: 'TEXT_POST',
      replyControl: 'mentioned_only',
      topicTag: 'Engines',
      linkAttachment: 'https://example.com/a',
    });
    expect(result).toEqual({ releaseId: thread?.id, releaseURL: thread?.permalink });
    expect(result.releaseURL).toMatch(/^https:\/\/www\.threads\.com\/@ada\/post\/[\w-]+$/);
    const containerId = thread?.containerId ?? '';
    expect(input.checkpoint.saves).toEqual([
      { container: containerId, containerMadeAt: expect.any(String) as string },
      { media: result.releaseId },
    ]);
    const publish = requestsTo('threads_publish').at(-1);
    expect(formOf(publish?.text ?? '').get('creation_id')).toBe(containerId);
  });

  it('publishes an image Threads pulls from its public URL, with its alt text', async () => {
    const photo = media('photo.jpg', jpeg, 'image', 'image/jpeg', 'A steam engine');

    const result = await adapter.publish(part('With a photo', { media: [photo] }));

    const [thread] = made('With a photo');
    expect(thread).toMatchObject({
      id: result.releaseId, mediaType: 'IMAGE', mediaUrls: [photo.url], altTexts: ['A steam engine'],
    });
    expect(fetched.get('/photo.jpg')).toBe(1);
  });

  it('waits while a video is IN_PROGRESS and publishes it once FINISHED', async () => {
    threads.publishing.videoPollsInProgress = 2;
    const clip = media('clip.mp4', sampleMp4(), 'video', 'video/mp4');
    const before = threads.received.length;

    const result = await adapter.publish(part('With a video', { media: [clip] }));

    const [thread] = made('With a video');
    expect(thread).toMatchObject({ id: result.releaseId, mediaType: 'VIDEO', mediaUrls: [clip.url] });
    const calls = threads.received.slice(before).map((request) => request.path.replace(/\d{10,}/g, '{id}'));
    expect(calls.filter((path) => path === '/v1.0/{id}').length).toBe(4);
    // Three status reads (two IN_PROGRESS, one FINISHED), then threads_publish, then the permalink.
    expect(calls.slice(-5)).toEqual([
      '/v1.0/{id}', '/v1.0/{id}', '/v1.0/{id}', '/v1.0/me/threads_publish', '/v1.0/{id}',
    ]);
  });

  it('publishes several files as one carousel made of items created first', async () => {
    const items = [
      media('c1.png', samplePng(), 'image', 'image/png', 'First'),
      media('c2.mp4', sampleMp4(), 'video', 'video/mp4'),
      media('c3.jpg', jpeg, 'image', 'image/jpeg'),
    ];
    const input = part('A carousel', { media: items });

    const result = await adapter.publish(input);

    const [thread] = made('A carousel');
    expect(thread).toMatchObject({
      id: result.releaseId, mediaType: 'CAROUSEL_ALBUM', altTexts: ['First', null, null],
    });
    expect(thread?.mediaUrls).toEqual(items.map((item) => item.url));
    const parent = threads.publishing.containers.get(thread?.containerId ?? '');
    expect(parent?.children).toHaveLength(3);
    for (const id of parent?.children ?? []) expect(threads.publishing.containers.get(id)?.isCarouselItem).toBe(true);
    expect(input.checkpoint.values.carouselItems).toBe(parent?.children.join(','));
  });

  it('chains the parts of a thread as replies to the previous part', async () => {
    const root = await adapter.publish(part('Chain 1/3'));
    const second = await adapter.comment({ ...part('Chain 2/3'), parentReleaseId: root.releaseId });
    const last = part('Chain 3/3', { settings: { reply_control: 'everyone' } });
    const third = await adapter.comment({ ...last, parentReleaseId: second.releaseId });

    expect(made('Chain 2/3')[0]).toMatchObject({
      id: second.releaseId, replyToId: root.releaseId, rootId: root.releaseId,
    });
    // The post's settings belong to the first part only.
    expect(made('Chain 3/3')[0]).toMatchObject({
      id: third.releaseId, replyToId: second.releaseId, replyControl: null,
    });
  });

  it('fails the part with Threads\' reason when the container ends in ERROR, without publishing', async () => {
    const notAVideo = media('fake.mp4', samplePng(), 'video', 'video/mp4');
    const publishes = requestsTo('threads_publish').length;

    const error = await platformFailure(adapter.publish(part('Broken video', { media: [notAVideo] })));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Threads could not process the video (FAILED_PROCESSING_VIDEO)');
    expect(requestsTo('threads_publish')).toHaveLength(publishes);
  });

  it('shows Threads\' refusal of an image that is not JPEG or PNG', async () => {
    const animated = media('a.gif', gif, 'image', 'image/gif');

    const error = await platformFailure(adapter.publish(part('A GIF', { media: [animated] })));

    expect(error).toMatchObject({ kind: 'permanent', message: 'The image format is not supported; use JPEG or PNG' });
  });
});

describe('threads adapter: exactly once', () => {
  it('finds the post when threads_publish was accepted and its answer lost: no second publish', async () => {
    const input = part('Lost answer');
    threads.publishing.failNext('threads_publish', { loseResponse: true });
    const lost = threads.publishing.lostResponses;

    const first = await platformFailure(adapter.publish(input));
    expect(first.kind).toBe('retryable');
    expect(threads.publishing.lostResponses).toBe(lost + 1);
    const publishes = requestsTo('threads_publish').length;
    const containers = requestsTo('threads').filter((request) => request.method === 'POST').length;

    const retried = await adapter.publish({ ...input, checkpoint: input.checkpoint });

    expect(made('Lost answer')).toHaveLength(1);
    const [thread] = made('Lost answer');
    expect(retried).toEqual({ releaseId: thread?.id, releaseURL: thread?.permalink });
    expect(requestsTo('threads_publish')).toHaveLength(publishes);
    expect(requestsTo('threads').filter((request) => request.method === 'POST')).toHaveLength(containers);
  });

  it('finds a lost reply among the profile\'s replies to the previous part', async () => {
    const root = await adapter.publish(part('Lost reply 1/2'));
    const input = { ...part('Lost reply 2/2'), parentReleaseId: root.releaseId };
    threads.publishing.failNext('threads_publish', { loseResponse: true });
    await platformFailure(adapter.comment(input));

    const retried = await adapter.comment(input);

    expect(made('Lost reply 2/2')).toHaveLength(1);
    expect(retried.releaseId).toBe(made('Lost reply 2/2')[0]?.id);
    expect(threads.received.at(-1)?.path).toBe('/v1.0/me/replies');
  });

  it('calls the part unconfirmed when the container was published and no post matches', async () => {
    const input = part('Vanished');
    threads.publishing.failNext('threads_publish', { loseResponse: true });
    await platformFailure(adapter.publish(input));
    // Deleted on Threads before the retry: nothing to find, and sending again could post twice.
    const index = threads.publishing.threads.findIndex((thread) => thread.text === 'Vanished');
    threads.publishing.threads.splice(index, 1);
    const publishes = requestsTo('threads_publish').length;

    const error = await platformFailure(adapter.publish(input));

    expect(error.kind).toBe('unconfirmed');
    expect(error.message).toMatch(/^Threads published container \d+ but its answer was lost/);
    expect(error.message).toContain('the profile shows no item with its text');
    expect(requestsTo('threads_publish')).toHaveLength(publishes);
  });

  it('publishes the saved container, not a new one, after a failure before threads_publish went through', async () => {
    const input = part('Second try');
    threads.publishing.failNext('threads_publish', graphError('An unexpected error has occurred.', 2, { status: 500 }));
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    const saved = input.checkpoint.values.container;

    const result = await adapter.publish(input);

    expect(made('Second try')).toEqual([expect.objectContaining({ id: result.releaseId, containerId: saved })]);
  });

  it('makes a new container when the saved one expired unpublished', async () => {
    const input = part('Expired');
    threads.publishing.failNext('threads_publish', graphError('An unexpected error has occurred.', 2, { status: 500 }));
    await platformFailure(adapter.publish(input));
    const first = input.checkpoint.values.container ?? '';
    threads.publishing.expire(first);

    await adapter.publish(input);

    const [thread] = made('Expired');
    expect(made('Expired')).toHaveLength(1);
    expect(thread?.containerId).not.toBe(first);
    expect(input.checkpoint.values.container).toBe(thread?.containerId);
  });

  it('answers from the saved media id without calling threads_publish again', async () => {
    const input = part('Already known');
    const first = await adapter.publish(input);
    const publishes = requestsTo('threads_publish').length;

    expect(await adapter.publish(input)).toEqual(first);
    expect(requestsTo('threads_publish')).toHaveLength(publishes);
  });
});

describe('threads adapter: errors', () => {
  it('flags the channel when Threads refuses the token (190)', async () => {
    const user = '25000000000000009';
    addUser(user, 'gone');
    const revoked = threads.tokenFor(user);
    threads.revokeUser(user);

    const error = await platformFailure(adapter.publish(part('Revoked', { channel: channel(revoked) })));

    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 400 });
    expect(error.message).toBe('Error validating access token: The user has not authorized application.');
  });

  it('waits for the usage header\'s estimated time when Threads throttles with code 4', async () => {
    const usage = JSON.stringify({
      [ada]: [{ type: 'threads', call_count: 100, estimated_time_to_regain_access: 3 }],
    });
    const throttled = graphError('(#4) Application request limit reached', 4);
    threads.publishing.failNext('threads', { ...throttled, headers: { 'x-business-use-case-usage': usage } });

    const error = await platformFailure(adapter.publish(part('Throttled')));

    expect(error).toMatchObject({
      kind: 'retryable', retryAfterMs: 180_000, message: '(#4) Application request limit reached',
    });
  });

  it('waits a minute when a throttled answer (17) carries no usage header', async () => {
    threads.publishing.failNext('threads', graphError('(#17) User request limit reached', 17));

    const error = await platformFailure(adapter.publish(part('Throttled again')));

    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 60_000 });
  });

  it('waits an hour, before making a container, once the publishing quota is used up', async () => {
    const user = '25000000000000002';
    addUser(user, 'busy');
    threads.publishing.setQuota(user, { posts: 1, replies: 1000, durationSeconds: 86400 });
    const busy = channel(threads.tokenFor(user));
    await adapter.publish(part('Quota 1', { channel: busy }));
    const containers = requestsTo('threads').filter((request) => request.method === 'POST').length;

    const error = await platformFailure(adapter.publish(part('Quota 2', { channel: busy })));

    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 3_600_000 });
    expect(error.message).toContain('published its 1 posts allowed through the API in 24 hours');
    expect(requestsTo('threads').filter((request) => request.method === 'POST')).toHaveLength(containers);
  });

  it('waits an hour when threads_publish itself refuses for the publishing quota', async () => {
    const message = 'The user has reached the publishing limit of posts in 24 hours';
    const refusal = graphError(message, 9, { subcode: 2207042 });
    threads.publishing.failNext('threads_publish', refusal);

    const error = await platformFailure(adapter.publish(part('Quota at publish')));

    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 3_600_000 });
  });

  it('asks to reconnect when the token lacks a permission (code 10)', async () => {
    const narrow = threads.tokenFor(ada, ['threads_basic', 'threads_content_publish']);

    const parentReleaseId = made('Chain 1/3')[0]?.id ?? '';
    const reply = { ...part('No reply scope', { channel: channel(narrow) }), parentReleaseId };

    const error = await platformFailure(adapter.comment(reply));

    expect(error).toMatchObject({
      kind: 'disconnected', message: '(#10) Application does not have permission for this action',
    });
  });

  it('shows Threads\' refusal of text over 500 characters', async () => {
    const error = await platformFailure(adapter.publish(part('x'.repeat(501))));

    expect(error).toMatchObject({
      kind: 'permanent', message: '(#100) Param text must be at most 500 characters long',
    });
  });
});

describe('threads adapter: reads', () => {
  it('reads the publishing quota (tool)', async () => {
    const limit = await adapter.tools.publishingLimit?.(channel(), {});

    expect(limit).toEqual({
      posts: { used: expect.any(Number) as number, total: 250, windowSeconds: 86400 },
      replies: { used: expect.any(Number) as number, total: 1000, windowSeconds: 86400 },
    });
    const posts = threads.publishing.threads.filter((thread) => thread.owner === ada);
    expect(limit).toMatchObject({ posts: { used: posts.filter((thread) => thread.replyToId === null).length } });
  });

  it('lists the profile\'s latest posts for a missing release id', async () => {
    const recent = await adapter.recentContent(channel());

    const posts = threads.publishing.threads.filter((thread) => thread.owner === ada && thread.replyToId === null);
    const newest = posts.at(-1);
    expect(recent[0]).toEqual({ id: newest?.id, url: newest?.permalink });
    expect(recent.length).toBeGreaterThan(5);
  });

  it('reads the profile\'s counters over the last day', async () => {
    threads.publishing.setUserInsights(ada, {
      views: [12, 30], likes: 7, replies: 3, reposts: 2, quotes: 1, clicks: 9, followersCount: 1234,
    });

    const counters = await adapter.analytics?.account(channel());

    expect(counters).toEqual([
      { label: 'Profile views', value: 42 },
      { label: 'Likes', value: 7 },
      { label: 'Replies', value: 3 },
      { label: 'Reposts', value: 2 },
      { label: 'Quotes', value: 1 },
      { label: 'Followers', value: 1234 },
    ]);
    const call = threads.received.at(-1);
    expect(Number(call?.query.get('until')) - Number(call?.query.get('since'))).toBe(86400);
  });

  it('reads one post\'s counters, its replies counted by Threads', async () => {
    const root = made('Chain 1/3')[0]?.id ?? '';
    threads.publishing.setMediaInsights(root, { views: 500, likes: 40, reposts: 4, quotes: 2, shares: 1 });

    expect(await adapter.analytics?.post(channel(), root)).toEqual([
      { label: 'Views', value: 500 },
      { label: 'Likes', value: 40 },
      { label: 'Replies', value: 1 },
      { label: 'Reposts', value: 4 },
      { label: 'Quotes', value: 2 },
      { label: 'Shares', value: 1 },
    ]);
  });
});
