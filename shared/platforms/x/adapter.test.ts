import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startXSimulator, type XSimulator } from '../../../test/simulators/x/x-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createXAdapter, postUrl } from './adapter.ts';
import { xConnect } from './connect.ts';

const alice = {
  id: '2244994945', name: 'Alice', username: 'alice', profile_image_url: 'https://pbs.twimg.com/a.jpg',
  public_metrics: { followers_count: 1200, following_count: 80, tweet_count: 4321, listed_count: 7 },
};
const suspended = { id: '99', name: 'Mallory', username: 'mallory', profile_image_url: '', suspended: true };

let sim: XSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;
let suspendedChannel: ChannelCredentials;

async function connectAs(userId: string): Promise<ChannelCredentials> {
  sim.authority.consentingUser = userId;
  const context = {
    app: {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url,
      botToken: null,
    },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
  const { tokens } = await authorizeAndConnect(xConnect, context);
  return { channelId: `c-${userId}`, accessToken: tokens.accessToken, instanceUrl: null };
}

let parts = 0;
/** A part with text of its own (X refuses the same text twice) and a fresh checkpoint. */
function part(content: string, extra: Partial<PublishInput> = {}): PublishInput & { checkpoint: MemoryCheckpoint } {
  parts += 1;
  const checkpoint = memoryCheckpoint();
  return {
    channel, content, media: [], settings: {}, idempotencyKey: `sps-post-${String(parts)}`, ...extra, checkpoint,
  };
}

function file(bytes: Buffer, mimeType: string, fileName: string): PublishMedia {
  return {
    kind: mimeType.startsWith('video/') ? 'video' : 'image',
    mimeType,
    size: bytes.length,
    fileName,
    alt: null,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

/** A GIF as X sniffs it: the signature and padding. */
const gifBytes = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(5_000, 1)]);
const png = samplePng(3_000);
const mp4 = sampleMp4(200_000);

const unavailable = {
  status: 503, body: { title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 },
};
const duplicate = 'X: You are not allowed to create a Tweet with duplicate content.';

const madeWith = (text: string) => sim.posts.items.filter((post) => post.text === text);
const count = (route: string) => sim.requestsTo(route).length;

beforeAll(async () => {
  sim = await startXSimulator();
  sim.addUser(alice);
  sim.addUser(suspended);
  channel = await connectAs(alice.id);
  suspendedChannel = await connectAs(suspended.id);
  const chunkBytes = 64 * 1024;
  adapter = createXAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url }, {
    chunkBytes, maxProcessingMs: 10_000,
  });
});

beforeEach(() => {
  sim.media.processing = { checkAfterSecs: 0, pollsUntilDone: 1, lifetimeSecs: 86_400 };
});

afterAll(async () => {
  await sim.close();
});

describe('x adapter: posts and threads', () => {
  it('posts the text and links it under the username read from /2/users/me before the post', async () => {
    const before = sim.received.length;
    const result = await adapter.publish(part('Hello X'));
    const [made] = madeWith('Hello X');
    expect(result).toEqual({ releaseId: made?.id, releaseURL: `https://x.com/alice/status/${made?.id ?? ''}` });
    const routes = sim.received.slice(before).map((request) => `${request.method} ${request.path}`);
    expect(routes).toEqual(['GET /2/users/me', 'POST /2/tweets']);
  });

  it('sends the settings under X\'s names on the first part and chains the parts as replies', async () => {
    const settings = {
      reply_settings: 'following', made_with_ai: true, paid_partnership: false, community_id: '1493446837214187523',
    };
    const root = await adapter.publish(part('Thread 1/3', { settings }));
    const second = await adapter.comment({ ...part('Thread 2/3', { settings }), parentReleaseId: root.releaseId });
    const third = await adapter.comment({ ...part('Thread 3/3', { settings }), parentReleaseId: second.releaseId });
    const thread = sim.posts.items.filter((post) => post.text.startsWith('Thread '));
    expect(thread.map((post) => [post.text, post.replyTo])).toEqual([
      ['Thread 1/3', null], ['Thread 2/3', root.releaseId], ['Thread 3/3', second.releaseId],
    ]);
    expect(thread[0]?.options).toEqual(settings);
    expect(thread[1]?.options).toEqual({});
    expect(third.releaseURL).toBe(postUrl('alice', thread[2]?.id ?? ''));
  });

  it('sends a poll and a quoted post as X names them', async () => {
    const quoted = await adapter.publish(part('To be quoted'));
    await adapter.publish(part('Quoting', { settings: { quote_tweet_id: quoted.releaseId } }));
    const poll = { options: ['Tea', 'Coffee'], duration_minutes: 60 };
    await adapter.publish(part('Which one?', { settings: { poll } }));
    expect(madeWith('Quoting')[0]?.options).toEqual({ quote_tweet_id: quoted.releaseId });
    expect(madeWith('Which one?')[0]?.options).toEqual({ poll });
  });

  it('refuses settings that do not parse before calling X', async () => {
    const before = sim.received.length;
    const settings = { reply_settings: 'nobody' };
    const error = await platformFailure(adapter.publish(part('Bad settings', { settings })));
    expect(error.kind).toBe('permanent');
    expect(sim.received.length).toBe(before);
  });
});

describe('x adapter: media', () => {
  it('uploads an image in one request as tweet_image and checkpoints its id before posting', async () => {
    const input = part('With an image', { media: [file(png, 'image/png', 'a.png')] });
    await adapter.publish(input);
    const [made] = madeWith('With an image');
    const uploaded = sim.media.items.find((item) => item.id === made?.mediaIds[0]);
    expect(uploaded).toMatchObject({ category: 'tweet_image', mediaType: 'image/png' });
    expect(uploaded?.bytes?.equals(png)).toBe(true);
    expect(input.checkpoint.saves.map((save) => Object.keys(save))).toEqual([
      ['media0Id', 'media0ExpiresAt', 'media0Step', 'media0File'],
      ['postAttemptAt'],
    ]);
    expect(input.checkpoint.values.media0Id).toBe(uploaded?.id);
  });

  it('uploads a video in segments (initialize, append, finalize) and polls STATUS until processed', async () => {
    sim.media.processing = { checkAfterSecs: 0, pollsUntilDone: 2, lifetimeSecs: 86_400 };
    const before = sim.received.length;
    await adapter.publish(part('With a video', { media: [file(mp4, 'video/mp4', 'clip.mp4')] }));
    const [made] = madeWith('With a video');
    const video = sim.media.items.find((item) => item.id === made?.mediaIds[0]);
    expect(video).toMatchObject({ category: 'tweet_video', mediaType: 'video/mp4', state: 'succeeded' });
    expect(video?.bytes?.equals(mp4)).toBe(true);
    expect(video?.segments.size).toBe(4);
    const routes = sim.received.slice(before)
      .map((request) => `${request.method} ${request.path.replace(/\d{10,}/, ':id')}`);
    expect(routes).toEqual([
      'GET /2/users/me', 'POST /2/media/upload/initialize',
      'POST /2/media/upload/:id/append', 'POST /2/media/upload/:id/append',
      'POST /2/media/upload/:id/append', 'POST /2/media/upload/:id/append',
      'POST /2/media/upload/:id/finalize', 'GET /2/media/upload', 'GET /2/media/upload', 'GET /2/media/upload',
      'POST /2/tweets',
    ]);
  });

  it('uploads a GIF through the chunked flow as tweet_gif', async () => {
    await adapter.publish(part('With a GIF', { media: [file(gifBytes, 'image/gif', 'a.gif')] }));
    const gif = sim.media.items.find((item) => item.id === madeWith('With a GIF')[0]?.mediaIds[0]);
    expect(gif).toMatchObject({ category: 'tweet_gif', mediaType: 'image/gif' });
  });

  it('waits the check_after_secs X asks for between STATUS polls', async () => {
    sim.media.processing = { checkAfterSecs: 1, pollsUntilDone: 1, lifetimeSecs: 86_400 };
    const early = sim.media.earlyPolls;
    const started = Date.now();
    await adapter.publish(part('Processed slowly', { media: [file(mp4, 'video/mp4', 'slow.mp4')] }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(sim.media.earlyPolls).toBe(early);
  });

  it('fails the part when processing fails, from the state alone as X\'s description shapes it', async () => {
    sim.media.failNextProcessing = 'Unsupported video codec';
    const media = [file(mp4, 'video/mp4', 'bad.mp4')];
    const error = await platformFailure(adapter.publish(part('Bad video', { media })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/^X could not process media \d+; it gives no reason/);
    expect(madeWith('Bad video')).toHaveLength(0);
    // processing_info has no room for an error object (additionalProperties: false in the description).
    const failed = sim.media.items.find((item) => item.state === 'failed');
    const status = await fetch(`${sim.url}/2/media/upload?command=STATUS&media_id=${failed?.id ?? ''}`, {
      headers: { Authorization: `Bearer ${channel.accessToken}` },
    });
    const body = await status.json() as { data: { processing_info: Record<string, unknown> } };
    expect(body.data.processing_info).toEqual({ state: 'failed', progress_percent: 100 });
  });

  it('answers refusals as problem details typed application/problem+json, which the adapter reads', async () => {
    const answer = await fetch(`${sim.url}/2/tweets`, {
      method: 'POST',
      headers: { Authorization: 'Bearer nobody', 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'Refused' }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ title: 'Unauthorized', status: 401 });
    const refused = part('Refused', { channel: { ...channel, accessToken: 'at-nobody' } });
    const error = await platformFailure(adapter.publish(refused));
    expect(error.httpStatus).toBe(401);
  });

  it('does not upload a video again when the finalize answer was lost: the retry asks STATUS', async () => {
    const input = part('Lost finalize', { media: [file(mp4, 'video/mp4', 'lost.mp4')] });
    const initializes = count('POST /2/media/upload/initialize');
    const lost = sim.lostResponses;
    sim.failNext('POST /2/media/upload/:id/finalize', { loseResponse: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    expect(sim.lostResponses).toBe(lost + 1);
    await adapter.publish(input);
    expect(count('POST /2/media/upload/initialize')).toBe(initializes + 1);
    const [made] = madeWith('Lost finalize');
    expect(made?.mediaIds).toEqual([input.checkpoint.values.media0Id]);
  });

  it('leaves a video X is still processing to the next attempt, which polls it and uploads nothing', async () => {
    sim.media.processing = { checkAfterSecs: 1, pollsUntilDone: 0, lifetimeSecs: 86_400 };
    const impatient = createXAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url }, {
      chunkBytes: 64 * 1024, maxProcessingMs: 0,
    });
    const input = part('Still processing', { media: [file(mp4, 'video/mp4', 'processing.mp4')] });
    const initializes = count('POST /2/media/upload/initialize');
    const error = await platformFailure(impatient.publish(input));
    expect(error.kind).toBe('retryable');
    expect(error.message).toMatch(/^X is still processing media \d+/);
    expect(input.checkpoint.values.media0Step).toBe('finalized');
    await adapter.publish(input);
    expect(count('POST /2/media/upload/initialize')).toBe(initializes + 1);
    expect(madeWith('Still processing')[0]?.mediaIds).toEqual([input.checkpoint.values.media0Id]);
  });

  it('uploads again when a segment\'s answer was lost before X finalized the media', async () => {
    const input = part('Lost append', { media: [file(mp4, 'video/mp4', 'append.mp4')] });
    const initializes = count('POST /2/media/upload/initialize');
    sim.failNext('POST /2/media/upload/:id/append', 'pass', { loseResponse: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    const firstId = input.checkpoint.values.media0Id;
    await adapter.publish(input);
    expect(count('POST /2/media/upload/initialize')).toBe(initializes + 2);
    expect(madeWith('Lost append')[0]?.mediaIds).not.toEqual([firstId]);
  });

  it('reuses the checkpointed ids when the post itself failed, and uploads again once they expired', async () => {
    const input = part('Post failed', { media: [file(png, 'image/png', 'b.png'), file(png, 'image/png', 'c.png')] });
    const uploads = count('POST /2/media/upload');
    sim.failNext('POST /2/tweets', unavailable);
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    expect(count('POST /2/media/upload')).toBe(uploads + 2);
    await adapter.publish(input);
    expect(count('POST /2/media/upload')).toBe(uploads + 2);

    const stale = part('Stale ids', { media: [file(png, 'image/png', 'd.png')] });
    await stale.checkpoint.save({
      media0Id: '1880000000000000001', media0ExpiresAt: String(Date.now() + 60_000), media0Step: 'ready',
      media0File: 'd.png:3000',
    });
    await adapter.publish(stale);
    expect(count('POST /2/media/upload')).toBe(uploads + 3);
    expect(madeWith('Stale ids')[0]?.mediaIds).not.toEqual(['1880000000000000001']);
  });
});

describe('x adapter: exactly once', () => {
  it('finds the post X made when its answer was lost, and does not post again', async () => {
    const text = 'Lost answer & <more> at https://example.com/a?b=1&c=2';
    const input = part(text, { media: [file(png, 'image/png', 'e.png')] });
    sim.failNext('POST /2/tweets', { loseResponse: true });
    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    const posts = count('POST /2/tweets');
    const retried = await adapter.publish(input);
    expect(madeWith(text)).toHaveLength(1);
    expect(retried.releaseId).toBe(madeWith(text)[0]?.id);
    expect(count('POST /2/tweets')).toBe(posts);
  });

  it('finds a lost thread reply only as a reply to its own parent', async () => {
    const root = await adapter.publish(part('Parent A'));
    const other = await adapter.publish(part('Parent B'));
    await adapter.comment({ ...part('Same reply'), parentReleaseId: other.releaseId });
    const input = { ...part('Same reply!'), parentReleaseId: root.releaseId };
    sim.failNext('POST /2/tweets', { loseResponse: true });
    await platformFailure(adapter.comment(input));
    const retried = await adapter.comment(input);
    const made = madeWith('Same reply!');
    expect(made).toHaveLength(1);
    expect(retried.releaseId).toBe(made[0]?.id);
    expect(made[0]?.replyTo).toBe(root.releaseId);
  });

  it('sets the part aside as unconfirmed when X calls a retry duplicate and the look-up cannot find it', async () => {
    const input = part('Lagging timeline');
    sim.failNext('POST /2/tweets', { loseResponse: true });
    await platformFailure(adapter.publish(input));
    const empty = { status: 200, body: { meta: { result_count: 0 } } };
    sim.failNext('GET /2/users/:id/tweets', empty, empty);
    const error = await platformFailure(adapter.publish(input));
    expect(error.kind).toBe('unconfirmed');
    expect(error.message).toContain(duplicate);
    expect(madeWith('Lagging timeline')).toHaveLength(1);
  });

  it('takes the post the second look-up finds after X called the retry duplicate', async () => {
    const input = part('Found late');
    sim.failNext('POST /2/tweets', { loseResponse: true });
    await platformFailure(adapter.publish(input));
    sim.failNext('GET /2/users/:id/tweets', { status: 200, body: { meta: { result_count: 0 } } });
    const result = await adapter.publish(input);
    expect(result.releaseId).toBe(madeWith('Found late')[0]?.id);
  });

  it('fails a first attempt refused as duplicate content as permanent, in X\'s words', async () => {
    await adapter.publish(part('Said twice'));
    const error = await platformFailure(adapter.publish(part('Said twice')));
    expect(error).toMatchObject({ kind: 'permanent', httpStatus: 403, message: duplicate });
  });

  it('calls an accept it cannot read unconfirmed', async () => {
    const offDescription = 'an accept without the post\'s id, which X never sends: SPS must not call it published';
    sim.failNext('POST /2/tweets', { status: 201, body: { data: {} }, offDescription });
    expect((await platformFailure(adapter.publish(part('Odd answer')))).kind).toBe('unconfirmed');
  });
});

describe('x adapter: errors', () => {
  it('asks for a refresh when X refuses the token', async () => {
    const gone = { ...channel, accessToken: 'at-gone' };
    const error = await platformFailure(adapter.publish(part('Old token', { channel: gone })));
    expect(error).toMatchObject({ kind: 'refresh_token', httpStatus: 401, message: 'X: Unauthorized' });
  });

  it('flags the channel of a suspended account and of an app X no longer serves', async () => {
    const error = await platformFailure(adapter.publish(part('Suspended', { channel: suspendedChannel })));
    const message = 'X: Your account is suspended and is not permitted to access this feature.';
    expect(error).toMatchObject({ kind: 'disconnected', message });
    const forbidden = {
      status: 403,
      body: {
        title: 'Client Forbidden', detail: 'This request must be made using an approved developer account.',
        type: 'https://api.x.com/2/problems/client-forbidden',
      },
    };
    sim.failNext('GET /2/users/me', forbidden);
    expect((await platformFailure(adapter.publish(part('Forbidden app')))).kind).toBe('disconnected');
  });

  it('waits for x-rate-limit-reset on a 429, and stops on a spent usage cap', async () => {
    sim.failNext('POST /2/tweets', sim.rateLimited(120));
    const error = await platformFailure(adapter.publish(part('Throttled')));
    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBeGreaterThan(118_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(121_000);
    sim.failNext('POST /2/tweets', {
      status: 429,
      body: {
        title: 'UsageCapExceeded', detail: 'Usage cap exceeded: Monthly product cap',
        type: 'https://api.x.com/2/problems/usage-capped',
      },
    });
    const capped = await platformFailure(adapter.publish(part('Capped')));
    expect(capped).toMatchObject({ kind: 'permanent', message: 'X: Usage cap exceeded: Monthly product cap' });
  });

  it('shows X\'s words for a refused field and retries an outage', async () => {
    const error = await platformFailure(adapter.comment({ ...part('Orphan'), parentReleaseId: '1' }));
    expect(error).toMatchObject({ kind: 'permanent', message: 'X: The post you are replying to does not exist.' });
    sim.failNext('GET /2/users/me', unavailable);
    expect((await platformFailure(adapter.publish(part('Outage')))).kind).toBe('retryable');
  });
});

describe('x adapter: reads', () => {
  it('lists the account\'s latest posts with their links', async () => {
    const made = await adapter.publish(part('Recent one'));
    const recent = await adapter.recentContent(channel);
    expect(recent[0]).toEqual({ id: made.releaseId, url: made.releaseURL });
    expect(recent.length).toBeGreaterThan(1);
  });

  it('reads the account\'s counters from /2/users/me public_metrics', async () => {
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Followers', value: 1200 }, { label: 'Following', value: 80 },
      { label: 'Posts', value: 4321 }, { label: 'Listed', value: 7 },
    ]);
  });

  it('reads a post\'s counters from /2/tweets/:id public_metrics, and X\'s words for a deleted post', async () => {
    const made = await adapter.publish(part('Counted'));
    const post = sim.posts.items.find((item) => item.id === made.releaseId);
    if (post === undefined) throw new Error('the post was not made');
    post.metrics = {
      impression_count: 900, like_count: 12, reply_count: 3, retweet_count: 4, quote_count: 1, bookmark_count: 2,
    };
    expect(await adapter.analytics?.post(channel, made.releaseId)).toEqual([
      { label: 'Impressions', value: 900 }, { label: 'Likes', value: 12 }, { label: 'Replies', value: 3 },
      { label: 'Reposts', value: 4 }, { label: 'Quotes', value: 1 }, { label: 'Bookmarks', value: 2 },
    ]);
    const error = await platformFailure(adapter.analytics?.post(channel, '1999') ?? Promise.resolve());
    expect(error).toMatchObject({ kind: 'permanent', message: 'X: Could not find tweet with id: [1999].' });
  });

  it('offers no tools, as the definition declares none', () => {
    expect(adapter.tools).toEqual({});
  });
});
