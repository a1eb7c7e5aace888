import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLemmySimulator, type LemmySimulator } from '../../../test/simulators/lemmy/lemmy-simulator.ts';
import {
  aliceChannel, communities, mediaFile, seedInstance,
} from '../../../test/simulators/lemmy/lemmy-test-channel.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng, solidPng } from '../../../test/support/sample-media.ts';
import { jsonBody } from '../../../test/simulators/kit/simulator-server.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createLemmyAdapter } from './adapter.ts';

const adapter = createLemmyAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) });
let simulator: LemmySimulator;
let channel: ChannelCredentials;

beforeAll(async () => {
  simulator = await startLemmySimulator();
  seedInstance(simulator);
  channel = await aliceChannel(simulator);
});

afterAll(async () => {
  await simulator.close();
});

interface Part {
  content: string;
  settings?: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
}

const titled = (name: string, extra: Record<string, unknown> = {}) =>
  ({ community_id: communities.technology, name, ...extra });

function publish(part: Part) {
  return adapter.publish({
    channel, content: part.content, media: part.media ?? [], settings: part.settings ?? titled('A title'),
    idempotencyKey: 'unused', checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

function comment(parentReleaseId: string, part: Part) {
  return adapter.comment({
    channel, content: part.content, media: part.media ?? [], settings: part.settings ?? titled('A title'),
    idempotencyKey: 'unused', checkpoint: part.checkpoint ?? memoryCheckpoint(), parentReleaseId,
  });
}

function lastSent(route: string): unknown {
  const request = simulator.requestsTo(route).at(-1);
  if (request === undefined) throw new Error(`nothing was sent to ${route}`);
  return jsonBody(request);
}
const postsNamed = (name: string) => simulator.state.posts.filter((post) => post.name === name);

describe('Lemmy adapter: posts and comments', () => {
  it('posts the text as the Markdown body of a titled post in the community, with the session', async () => {
    const settings = titled('Release notes', { nsfw: false, language_id: 37 });
    const result = await publish({ content: 'What is **new**', settings });

    const [made] = postsNamed('Release notes');
    expect(result).toEqual({ releaseId: String(made?.id), releaseURL: `${simulator.url}/post/${String(made?.id)}` });
    expect(lastSent('POST /api/v3/post')).toEqual({
      name: 'Release notes', community_id: communities.technology, body: 'What is **new**',
      nsfw: false, language_id: 37,
    });
    const request = simulator.requestsTo('POST /api/v3/post').at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${channel.accessToken}`);
  });

  it('uploads media to pict-rs: the first image is the post\'s URL, the rest are Markdown in the body', async () => {
    const first = solidPng(4, [0, 128, 255]);
    const second = samplePng();
    const checkpoint = memoryCheckpoint();
    const media = [
      mediaFile('image', first, 'A blue square'), mediaFile('image', second, 'A [red] dot'),
      mediaFile('video', sampleMp4(4_000), null),
    ];
    const result = await publish({ content: 'Pictures', settings: titled('With images'), media, checkpoint });

    const uploads = simulator.state.images.slice(-3);
    expect(uploads.map((image) => [image.contentType, image.uploaderId])).toEqual([
      ['image/png', 7], ['image/png', 7], ['video/mp4', 7],
    ]);
    expect(uploads[0]?.bytes.equals(first)).toBe(true);
    const hosted = uploads.map((image) => `${simulator.url}/pictrs/image/${image.file}`);
    const [made] = postsNamed('With images');
    expect(made).toMatchObject({
      url: hosted[0], altText: 'A blue square',
      body: `Pictures\n\n![A red dot](${hosted[1] ?? ''})\n\n[Video](${hosted[2] ?? ''})`,
    });
    expect(result.releaseId).toBe(String(made?.id));
    // Every upload's name, then the send marker, were stored before the post was sent.
    const saved = checkpoint.saves.map((save) => Object.keys(save)[0]);
    expect(saved).toEqual(['media0File', 'media1File', 'media2File', 'sentAt']);
    const multipart = simulator.requestsTo('POST /pictrs/image').at(-1)?.text ?? '';
    expect(multipart).toContain('name="images[]"');
  });

  it('keeps a post\'s own link and makes its first image the link\'s thumbnail', async () => {
    const settings = titled('Link post', { url: 'https://example.com/article', alt_text: 'Cover' });
    await publish({ content: '', settings, media: [mediaFile('image', samplePng())] });
    const hosted = `${simulator.url}/pictrs/image/${simulator.state.images.at(-1)?.file ?? ''}`;
    expect(lastSent('POST /api/v3/post')).toEqual({
      name: 'Link post', community_id: communities.technology, url: 'https://example.com/article',
      custom_thumbnail: hosted, alt_text: 'Cover',
    });
  });

  it('comments on the post, then answers each comment with the next part', async () => {
    const root = await publish({ content: 'Thread start', settings: titled('Thread') });
    const second = await comment(root.releaseId, { content: 'Second part', media: [mediaFile('image', samplePng())] });
    const third = await comment(second.releaseId, { content: 'Third part' });

    const [made] = postsNamed('Thread');
    const [one, two] = simulator.state.comments.slice(-2);
    expect(one).toMatchObject({ postId: made?.id, path: `0.${String(one?.id)}` });
    const image = `${simulator.url}/pictrs/image/${simulator.state.images.at(-1)?.file ?? ''}`;
    expect(one?.content).toBe(`Second part\n\n![](${image})`);
    const path = `0.${String(one?.id)}.${String(two?.id)}`;
    expect(two).toMatchObject({ postId: made?.id, content: 'Third part', path });
    expect(second).toEqual({
      releaseId: `${String(made?.id)}_${String(one?.id)}`, releaseURL: `${simulator.url}/comment/${String(one?.id)}`,
    });
    expect(third.releaseId).toBe(`${String(made?.id)}_${String(two?.id)}`);
    expect(lastSent('POST /api/v3/comment')).toEqual({ content: 'Third part', post_id: made?.id, parent_id: one?.id });
  });
});

describe('Lemmy adapter: exactly once', () => {
  it('finds the post a lost answer made, instead of posting it again', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('POST /api/v3/post', 'lose');
    const part = { content: 'Sent once', settings: titled('Lost answer'), checkpoint };
    const lost = await platformFailure(publish(part));
    expect(lost.kind).toBe('retryable');
    expect(postsNamed('Lost answer')).toHaveLength(1);

    const sends = simulator.requestsTo('POST /api/v3/post').length;
    const result = await publish(part);
    expect(simulator.requestsTo('POST /api/v3/post')).toHaveLength(sends);
    expect(postsNamed('Lost answer')).toHaveLength(1);
    expect(result.releaseId).toBe(String(postsNamed('Lost answer')[0]?.id));
  });

  it('finds the comment a lost answer made, under the same parent', async () => {
    const root = await publish({ content: 'Root', settings: titled('Lost comment') });
    const checkpoint = memoryCheckpoint();
    simulator.failNext('POST /api/v3/comment', 'lose');
    const lost = await platformFailure(comment(root.releaseId, { content: 'Reply once', checkpoint }));
    expect(lost.kind).toBe('retryable');

    const result = await comment(root.releaseId, { content: 'Reply once', checkpoint });
    const made = simulator.state.comments.filter((item) => item.content === 'Reply once');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(`${root.releaseId}_${String(made[0]?.id)}`);
  });

  it('finds a lost post whose text the instance rewrote (slur filter) by its title in the community', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.state.slurFilter = /darn/;
    simulator.failNext('POST /api/v3/post', 'lose');
    const part = { content: 'Darn bugs', settings: titled('Rewritten'), checkpoint };
    await platformFailure(publish(part));
    const result = await publish(part);
    simulator.state.slurFilter = null;

    const made = postsNamed('Rewritten');
    expect(made.map((post) => post.body)).toEqual(['*removed* bugs']);
    expect(result.releaseId).toBe(String(made[0]?.id));
  });

  it('sends a comment again when the marked attempt made nothing, despite other own comments there', async () => {
    const root = await publish({ content: 'Root', settings: titled('Busy post') });
    await comment(root.releaseId, { content: 'Mine, by hand' });
    await comment(root.releaseId, { content: 'Also mine' });
    const checkpoint = memoryCheckpoint({ sentAt: new Date().toISOString() });
    await comment(root.releaseId, { content: 'The part', checkpoint });
    const texts = simulator.state.comments.filter((item) => String(item.postId) === root.releaseId);
    expect(texts.map((item) => item.content)).toEqual(['Mine, by hand', 'Also mine', 'The part']);
  });

  it('sends again when the marked attempt made nothing, reusing the uploaded image', async () => {
    const checkpoint = memoryCheckpoint();
    simulator.failNext('POST /api/v3/post', { status: 502, body: 'Bad Gateway' });
    const media = [mediaFile('image', samplePng())];
    const part = { content: 'Retried', settings: titled('Not made first'), media, checkpoint };
    const failed = await platformFailure(publish(part));
    expect(failed.kind).toBe('retryable');
    const uploads = simulator.state.images.length;

    await publish(part);
    expect(postsNamed('Not made first')).toHaveLength(1);
    expect(simulator.state.images).toHaveLength(uploads);
    const reused = `${simulator.url}/pictrs/image/${checkpoint.values.media0File ?? ''}`;
    expect(postsNamed('Not made first')[0]?.url).toBe(reused);
  });
});

describe('Lemmy adapter: refusals', () => {
  it('waits for the instance\'s post bucket to refill when throttled (0.19: HTTP 400 rate_limit_error)', async () => {
    simulator.rateLimits.set('post', { count: 2, perSecond: 3 });
    simulator.rateLimits.drain('post');
    const error = await platformFailure(publish({ content: 'Too soon', settings: titled('Throttled') }));
    simulator.rateLimits.set('post', { count: 1000, perSecond: 60 });
    expect(error).toMatchObject({ kind: 'retryable', httpStatus: 400, retryAfterMs: 1500 });
    expect(error.message).toBe('Lemmy: the instance\'s rate limit was reached (rate_limit_error)');
    expect(postsNamed('Throttled')).toHaveLength(0);
  });

  it('takes Retry-After when the instance sends 429 with one (Lemmy 1.0)', async () => {
    simulator.failNext('POST /api/v3/comment', {
      status: 429, body: { error: 'too_many_requests' }, headers: { 'retry-after': '7' },
      offDescription: 'Lemmy 1.0 (API v4) throttles with 429; the simulator is held to 0.19\'s API v3',
    });
    const root = await publish({ content: 'x', settings: titled('Throttled comment') });
    const error = await platformFailure(comment(root.releaseId, { content: 'later' }));
    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 7_000 });
  });

  it.each([
    [communities.banned, {}, 'Lemmy: the account is banned from this community (banned_from_community)'],
    [
      communities.announcements, {},
      'Lemmy: only moderators may post in this community (only_mods_can_post_in_community)',
    ],
    [
      communities.english, { language_id: 52 },
      'Lemmy: the community does not allow the post\'s language (language_id) (language_not_allowed)',
    ],
    [999, {}, 'Lemmy: the community does not exist on this instance (check community_id) (couldnt_find_community)'],
  ])('refuses for good what community %i refuses, in words', async (communityId, extra, message) => {
    const settings = { community_id: communityId, name: 'Refused post', ...extra };
    const error = await platformFailure(publish({ content: 'no', settings }));
    expect(error).toMatchObject({ kind: 'permanent', message });
  });

  it('refuses settings Lemmy would refuse before sending anything', async () => {
    const before = simulator.received.length;
    const error = await platformFailure(publish({ content: 'x', settings: { community_id: 12, name: 'ab' } }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('Lemmy settings: name');
    expect(simulator.received.length).toBe(before);
  });

  it('shows pict-rs\'s refusal of a video on an instance that takes none', async () => {
    const noVideo = await startLemmySimulator({ allowVideo: false });
    seedInstance(noVideo);
    const own = await aliceChannel(noVideo);
    const input = {
      channel: own, content: 'Clip', media: [mediaFile('image', samplePng()), mediaFile('video', sampleMp4(2_000))],
      settings: titled('Video'), idempotencyKey: 'unused', checkpoint: memoryCheckpoint(),
    };
    const error = await platformFailure(adapter.publish(input));
    await noVideo.close();
    const message = 'Lemmy\'s image server refused the file: Video uploads are disabled';
    expect(error).toMatchObject({ kind: 'permanent', message });
  });

  it('flags the channel once the instance ends the session (logged out, password changed)', async () => {
    const bob = await startLemmySimulator();
    seedInstance(bob);
    const own = await aliceChannel(bob);
    bob.logOut('alice');
    const input = {
      channel: own, content: 'x', media: [], settings: titled('After logout'), idempotencyKey: 'unused',
      checkpoint: memoryCheckpoint(),
    };
    const error = await platformFailure(adapter.publish(input));
    await bob.close();
    expect(error.kind).toBe('disconnected');
    expect(error.message).toContain('(not_logged_in)');
  });
});
