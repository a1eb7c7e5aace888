import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ada, addTestSubreddits, connectAda } from '../../../test/simulators/reddit/reddit-channel.ts';
import { startRedditSimulator, type RedditSimulator } from '../../../test/simulators/reddit/reddit-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createRedditAdapter } from './adapter.ts';
import type { ListingTuning } from './reddit-send-once.ts';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

const png = samplePng();
const mp4 = sampleMp4(40_000);
const poster = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7)]);
const stream = (bytes: Buffer) => () => Promise.resolve(Readable.from([bytes]));

function image(fileName = 'card.png', alt: string | null = null): PublishMedia {
  const url = 'http://sps/card.png';
  return { kind: 'image', mimeType: 'image/png', size: png.length, fileName, alt, url, open: stream(png) };
}

function video(withPoster = true): PublishMedia {
  const frame = {
    mimeType: 'image/jpeg', fileName: 'clip-poster.jpg', url: 'http://sps/poster.jpg', chosen: false,
    open: stream(poster),
  };
  return {
    kind: 'video', mimeType: 'video/mp4', size: mp4.length, fileName: 'clip.mp4', alt: null,
    url: 'http://sps/clip.mp4', open: stream(mp4), ...(withPoster ? { poster: frame } : {}),
  };
}

/** Waits a few milliseconds where Reddit takes seconds, so the tests stay fast. */
const tuning: ListingTuning = {
  listingPolls: 4, listingPollMs: 5, processingWindowMs: 60_000, processingWaitMs: 30_000,
};

describe('Reddit adapter: publishing against the simulator', () => {
  let sim: RedditSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startRedditSimulator();
    sim.addUser(ada);
    addTestSubreddits(sim);
    const connected = await connectAda(sim);
    channel = connected.channel;
    adapter = createRedditAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, connected.app, tuning);
  });
  afterAll(async () => { await sim.close(); });
  beforeEach(() => { sim.submissions.processingReads = 0; });

  const settingsFor = (title: string, extra: Record<string, unknown> = {}) => (
    { subreddit: 'typescript', title, type: 'self', ...extra }
  );

  function publish(
    content: string,
    settings: Record<string, unknown>,
    extra: { media?: PublishMedia[]; checkpoint?: MemoryCheckpoint } = {},
  ) {
    return adapter.publish({
      channel, content, media: extra.media ?? [], settings, idempotencyKey: 'sps-post-1',
      checkpoint: extra.checkpoint ?? memoryCheckpoint(),
    });
  }

  function comment(content: string, parentReleaseId: string, checkpoint = memoryCheckpoint()) {
    return adapter.comment({
      channel, content, media: [], settings: settingsFor('unused'), idempotencyKey: 'sps-post-2', checkpoint,
      parentReleaseId,
    });
  }

  const postsTitled = (title: string) => sim.records.posts.filter((post) => post.title === title);
  const submitsTitled = (title: string) => sim.requestsTo('POST /api/submit')
    .filter((request) => new URLSearchParams(request.text).get('title') === title);

  it('submits a self post with its flair and marks, named and linked as Reddit answers', async () => {
    const checkpoint = memoryCheckpoint();
    const settings = settingsFor('Strict mode & you', {
      flair_id: 'f-show', flair_text: 'Show & tell', nsfw: false, spoiler: true, send_replies: false,
    });
    const result = await publish('Why **strict** helps.', settings, { checkpoint });

    const [post] = postsTitled('Strict mode & you');
    expect(post).toMatchObject({
      kind: 'self', subreddit: 'typescript', text: 'Why **strict** helps.', author: ada.name, flairId: 'f-show',
      flairText: 'Show & tell', nsfw: false, spoiler: true, sendReplies: false,
    });
    expect(result).toEqual({
      releaseId: post?.name,
      releaseURL: `https://www.reddit.com/r/typescript/comments/${post?.id ?? ''}/strict_mode_you/`,
    });
    const [sent] = submitsTitled('Strict mode & you');
    expect(sent?.headers.authorization).toBe(`bearer ${channel.accessToken}`);
    expect(sent?.headers['user-agent']).toBe(`web:${sim.clientId}:0.1 (Social Publishing Service)`);
    expect(new URLSearchParams(sent?.text).get('api_type')).toBe('json');
    // The moment of sending was stored before Reddit was asked, for a retry to look from.
    expect(checkpoint.saves).toHaveLength(1);
    expect(Number(checkpoint.saves[0]?.submittedAt)).toBeLessThanOrEqual(sent?.receivedAt ?? 0);
  });

  it('chains comments: the first answers the post, the next the comment before it', async () => {
    const root = await publish('Root', settingsFor('Thread root'));
    const first = await comment('First reply', root.releaseId);
    const second = await comment('Second reply', first.releaseId);
    const made = sim.records.comments.filter((item) => item.text.endsWith('reply'));
    expect(made.map((item) => [item.parent, item.link])).toEqual([
      [root.releaseId, root.releaseId], [first.releaseId, root.releaseId],
    ]);
    expect(second.releaseId).toBe(made[1]?.name);
    const path = `/comments/${root.releaseId.slice(3)}/thread_root/${made[1]?.id ?? ''}/`;
    expect(second.releaseURL).toBe(`https://www.reddit.com/r/typescript${path}`);
  });

  it('submits a link post with its url and body; the same link again is Reddit\'s ALREADY_SUB', async () => {
    const settings = settingsFor('A good read', { type: 'link', url: 'https://example.com/strict' });
    await publish('My notes on it', settings);
    expect(postsTitled('A good read')[0]).toMatchObject({
      kind: 'link', url: 'https://example.com/strict', text: 'My notes on it',
    });
    const again = await failure(publish('', { ...settings, title: 'Same link' }));
    expect(again).toMatchObject({ kind: 'permanent', httpStatus: 200 });
    expect(again.message)
      .toBe('Reddit refused the link post: that link has already been submitted (ALREADY_SUB, url)');
  });

  it('uploads an image through the lease and finds the post Reddit answered without an id', async () => {
    sim.submissions.processingReads = 2;
    const checkpoint = memoryCheckpoint();
    const settings = { subreddit: 'pics', title: 'Sunset', type: 'image', flair_id: 'f-oc' };
    const result = await publish('Shot on film', settings, { media: [image('sunset.png')], checkpoint });

    const lease = sim.requestsTo('POST /api/media/asset.json').at(-1);
    const leased = Object.fromEntries(new URLSearchParams(lease?.text));
    expect(leased).toEqual({ filepath: 'sunset.png', mimetype: 'image/png' });
    const asset = sim.records.assets.find((item) => item.fileName === 'sunset.png');
    expect(asset?.bytes?.equals(png)).toBe(true);
    const [post] = postsTitled('Sunset');
    expect(post?.url).toBe(`${sim.url}/reddit-uploaded-media/${asset?.key ?? ''}`);
    expect(post).toMatchObject({ kind: 'image', text: 'Shot on film', flairId: 'f-oc' });
    expect(result.releaseId).toBe(post?.name);
    expect(checkpoint.values).toMatchObject({ media0Url: post?.url, media0Asset: asset?.id });
    // Not listed on the first two reads: the adapter read the account's posts until it was.
    expect(sim.requestsTo('GET /user/:name/submitted').at(-1)?.path).toBe(`/user/${ada.name}/submitted`);
  });

  it('sends the storage form with every field of the lease and the file last', async () => {
    const settings = { subreddit: 'pics', title: 'Form order', type: 'image', flair_id: 'f-oc' };
    await publish('', settings, { media: [image('form.png')] });
    const asset = sim.records.assets.find((item) => item.fileName === 'form.png');
    const form = sim.requestsTo('POST storage').at(-1);
    const text = form?.raw.toString('latin1') ?? '';
    const names = [...text.matchAll(/form-data; name="([^"]+)"/g)].map((match) => match[1]);
    expect(names).toEqual([...(asset?.fields.map((field) => field.name) ?? []), 'file']);
    expect(form?.headers['content-length']).toBe(String(form?.raw.length));
  });

  it('submits a video with the frame the media worker took as its poster', async () => {
    const settings = { subreddit: 'typescript', title: 'Demo clip', type: 'video' };
    const result = await publish('', settings, { media: [video()] });
    const [post] = postsTitled('Demo clip');
    const clip = sim.uploads.assetAt(post?.url ?? '');
    const frame = sim.uploads.assetAt(post?.posterUrl ?? '');
    expect(clip?.bytes?.equals(mp4)).toBe(true);
    expect(frame).toMatchObject({ fileName: 'clip-poster.jpg', mimeType: 'image/jpeg' });
    expect(frame?.bytes?.equals(poster)).toBe(true);
    expect(result.releaseId).toBe(post?.name);
  });

  it('refuses a video without a poster before uploading anything', async () => {
    const leases = sim.requestsTo('POST /api/media/asset.json').length;
    const settings = { subreddit: 'typescript', title: 'No poster', type: 'video' };
    const error = await failure(publish('', settings, { media: [video(false)] }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/needs a poster image with a video/);
    expect(sim.requestsTo('POST /api/media/asset.json')).toHaveLength(leases);
  });

  it('submits a gallery as JSON, each image by its asset id with its alt text as caption', async () => {
    const media = [image('one.png', 'First'), image('two.png', 'x'.repeat(200))];
    const settings = { subreddit: 'typescript', title: 'Gallery', type: 'gallery' };
    const result = await publish('Two views', settings, { media });
    const [post] = postsTitled('Gallery');
    const sent = JSON.parse(sim.requestsTo('POST /api/submit_gallery_post.json').at(-1)?.text ?? '{}') as {
      items: { media_id: string; caption: string }[];
    };
    expect(sent.items.map((item) => item.caption)).toEqual(['First', 'x'.repeat(180)]);
    expect(post?.galleryAssets).toEqual(sent.items.map((item) => item.media_id));
    const releaseURL = `https://www.reddit.com/r/typescript/comments/${post?.id ?? ''}/gallery/`;
    expect(result).toEqual({ releaseId: post?.name, releaseURL });
  });
});

describe('Reddit adapter: exactly once', () => {
  let sim: RedditSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startRedditSimulator();
    sim.addUser(ada);
    addTestSubreddits(sim);
    const connected = await connectAda(sim);
    channel = connected.channel;
    adapter = createRedditAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, connected.app, tuning);
  });
  afterAll(async () => { await sim.close(); });
  beforeEach(() => { sim.submissions.processingReads = 0; });

  const run = (
    content: string,
    settings: Record<string, unknown>,
    checkpoint: MemoryCheckpoint,
    media: PublishMedia[] = [],
  ) => adapter.publish({ channel, content, media, settings, idempotencyKey: 'sps-post-9', checkpoint });
  const postsTitled = (title: string) => sim.records.posts.filter((post) => post.title === title);

  it('takes the post a lost answer left on Reddit instead of submitting again', async () => {
    const checkpoint = memoryCheckpoint();
    // Reddit escapes `&`, `<` and `>` in listings unless asked for raw JSON: the look-up must ask.
    const settings = { subreddit: 'typescript', title: 'Lost once: <T> & co', type: 'self' };
    sim.failNext('POST /api/submit', 'lose');
    const lost = await failure(run('body', settings, checkpoint));
    expect(lost.kind).toBe('retryable');
    const submits = sim.requestsTo('POST /api/submit').length;

    const result = await run('body', settings, checkpoint);
    expect(postsTitled('Lost once: <T> & co')).toHaveLength(1);
    expect(result.releaseId).toBe(postsTitled('Lost once: <T> & co')[0]?.name);
    expect(sim.requestsTo('POST /api/submit')).toHaveLength(submits);
  });

  it('submits again when an earlier attempt left nothing on Reddit', async () => {
    // An attempt checkpointed, then died before its request reached Reddit.
    const checkpoint = memoryCheckpoint({ submittedAt: String(Date.now() - 5_000) });
    const result = await run('body', { subreddit: 'typescript', title: 'Never arrived', type: 'self' }, checkpoint);
    expect(postsTitled('Never arrived')).toHaveLength(1);
    expect(result.releaseId).toBe(postsTitled('Never arrived')[0]?.name);
  });

  it('does not take an older post with the same title for this part', async () => {
    const settings = { subreddit: 'typescript', title: 'Weekly thread', type: 'self' };
    await run('last week', settings, memoryCheckpoint());
    const older = postsTitled('Weekly thread')[0];
    if (older !== undefined) older.createdUtc -= 7 * 24 * 3600;
    const checkpoint = memoryCheckpoint({ submittedAt: String(Date.now() - 1_000) });
    const result = await run('this week', settings, checkpoint);
    expect(postsTitled('Weekly thread')).toHaveLength(2);
    expect(result.releaseId).not.toBe(older?.name);
  });

  it('takes a comment a lost answer left on Reddit', async () => {
    const settings = { subreddit: 'typescript', title: 'Comment root', type: 'self' };
    const root = await run('root', settings, memoryCheckpoint());
    const checkpoint = memoryCheckpoint();
    const input = {
      channel, content: 'Only once', media: [], settings: {}, idempotencyKey: 'sps-post-10', checkpoint,
      parentReleaseId: root.releaseId,
    };
    sim.failNext('POST /api/comment', 'lose');
    await failure(adapter.comment(input));
    const result = await adapter.comment(input);
    const made = sim.records.comments.filter((item) => item.text === 'Only once');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.name);
    expect(sim.requestsTo('GET /user/:name/comments').length).toBeGreaterThan(0);
  });

  it('clears its mark after a refusal, so the attempt after a RATELIMIT wait submits without a look-up', async () => {
    const checkpoint = memoryCheckpoint();
    const settings = { subreddit: 'pics', title: 'Throttled image', type: 'image', flair_id: 'f-oc' };
    sim.submissions.throttled.push(9);
    const throttled = await failure(run('', settings, checkpoint, [image('throttled.png')]));
    expect(throttled).toMatchObject({ kind: 'retryable', retryAfterMs: 9_590 });
    expect(throttled.message).toMatch(/Take a break for 9 seconds/);
    expect(checkpoint.values.submittedAt).toBe('');

    const leases = sim.requestsTo('POST /api/media/asset.json').length;
    const result = await run('', settings, checkpoint, [image('throttled.png')]);
    expect(result.releaseId).toBe(postsTitled('Throttled image')[0]?.name);
    // The image stored before the refusal is the one submitted: no second lease.
    expect(sim.requestsTo('POST /api/media/asset.json')).toHaveLength(leases);
  });

  it('never submits an image post twice: a retry waits for Reddit to list it, then sets it aside', async () => {
    sim.submissions.processingReads = 1_000;
    const checkpoint = memoryCheckpoint();
    const settings = { subreddit: 'pics', title: 'Slow processing', type: 'image', flair_id: 'f-oc' };
    const waiting = await failure(run('', settings, checkpoint, [image('slow.png')]));
    expect(waiting).toMatchObject({ kind: 'retryable', retryAfterMs: tuning.processingWaitMs });

    const again = await failure(run('', settings, checkpoint, [image('slow.png')]));
    expect(again.kind).toBe('retryable');
    await checkpoint.save({ submittedAt: String(Date.now() - tuning.processingWindowMs - 1) });
    const late = await failure(run('', settings, checkpoint, [image('slow.png')]));
    expect(late.kind).toBe('unconfirmed');
    expect(late.message).toMatch(/Reddit may have made this post/);
    expect(postsTitled('Slow processing')).toHaveLength(1);

    sim.submissions.processingReads = 0;
    const post = postsTitled('Slow processing')[0];
    if (post !== undefined) post.readsUntilListed = 0;
    await checkpoint.save({ submittedAt: String(Date.now() - 1_000) });
    expect((await run('', settings, checkpoint, [image('slow.png')])).releaseId).toBe(post?.name);
  });
});
