import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFacebookSimulator, type FacebookSimulator,
} from '../../../test/simulators/facebook/facebook-simulator.ts';
import { graphError } from '../../../test/simulators/facebook/meta-graph-simulation.ts';
import { graphThrottle } from '../../../test/simulators/facebook/page-publishing-simulation.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng, solidPng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type {
  ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishMedia,
} from '../kit/platform-adapter.ts';
import { createFacebookAdapter } from './adapter.ts';
import { facebookConnect } from './connect.ts';
import { videoHostOf } from './page-graph.ts';

let facebook: FacebookSimulator;
let adapter: PlatformAdapter;
let channel: ChannelCredentials;
const pageId = '1001';

function media(bytes: Buffer, kind: 'image' | 'video', mimeType: string, alt: string | null = null): PublishMedia {
  return {
    kind, mimeType, size: bytes.length, fileName: kind === 'image' ? 'photo.png' : 'clip.mp4', alt,
    url: 'https://uploads.example/unused', open: () => Promise.resolve(Readable.from([bytes])),
  };
}
const png = (alt: string | null = null, bytes = samplePng()) => media(bytes, 'image', 'image/png', alt);
const mp4 = (bytes = sampleMp4(50_000)) => media(bytes, 'video', 'video/mp4');

let texts = 0;
/** Each test's text is its own: Graph refuses a text post repeating the Page's last one. */
function unique(text: string): string {
  texts += 1;
  return `${text} #${String(texts)}`;
}

function part(content: string, extra: Partial<PublishInput> = {}): PublishInput & { checkpoint: MemoryCheckpoint } {
  return {
    channel, content, media: [], settings: {}, idempotencyKey: `sps-post-${content}`, checkpoint: memoryCheckpoint(),
    ...extra,
  } as PublishInput & { checkpoint: MemoryCheckpoint };
}

function commentOn(parentReleaseId: string, content: string, extra: Partial<PublishInput> = {}): CommentInput {
  return { ...part(content, extra), parentReleaseId };
}

const requestsTo = (path: string, method = 'POST') =>
  facebook.received.filter((request) => request.method === method && request.path === `/v26.0${path}`);
const postOf = (id: string) => facebook.publishing.posts.find((post) => post.id === id);

beforeAll(async () => {
  facebook = await startFacebookSimulator();
  facebook.addPages('ada', [
    { id: pageId, name: 'Ada Bakery', pictureUrl: 'https://scontent.example/1001.jpg', tasks: ['CREATE_CONTENT'] },
    { id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg', tasks: ['CREATE_CONTENT'] },
  ]);
  facebook.authority.consentingUser = 'ada';
  const context = { app: facebook.app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  const { authorized } = await authorizeAndConnect(facebookConnect, context);
  const token = authorized.accounts.find((account) => account.accountId === pageId)?.accessToken ?? '';
  channel = { channelId: 'c1', accessToken: token, instanceUrl: null };
  adapter = createFacebookAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, facebook.app);
});

afterAll(async () => {
  await facebook.close();
});

describe('facebook adapter: publishing on the Page', () => {
  it('posts text and a link on the feed with the Page token in the Authorization header', async () => {
    const text = unique('Fresh bread today');
    const result = await adapter.publish(part(text, { settings: { link: 'https://bakery.example/menu' } }));

    expect(result.releaseId).toMatch(/^1001_\d+$/);
    expect(result.releaseURL).toBe(`https://www.facebook.com/${result.releaseId}`);
    const made = postOf(result.releaseId);
    expect(made).toMatchObject({ message: text, link: 'https://bakery.example/menu', photoIds: [] });
    const sent = requestsTo(`/${pageId}/feed`).at(-1);
    expect(sent?.headers.authorization).toBe(`OAuth ${channel.accessToken}`);
    expect(sent?.query.has('access_token')).toBe(false);
  });

  it('uploads one photo with its alt text and publishes it: the release is the photo\'s post', async () => {
    const text = unique('Our croissant');
    const bytes = solidPng(8, [200, 150, 50]);
    const result = await adapter.publish(part(text, { media: [png('A golden croissant', bytes)] }));

    const photo = facebook.publishing.photos.at(-1);
    expect(photo).toMatchObject({ published: true, alt: 'A golden croissant', usedBy: result.releaseId });
    expect(photo?.file.bytes.equals(bytes)).toBe(true);
    expect(postOf(result.releaseId)).toMatchObject({ message: text, photoIds: [photo?.id] });
  });

  it('uploads several photos unpublished, keeping each id, then attaches them to one feed post', async () => {
    const text = unique('Two loaves');
    const input = part(text, { media: [png('first'), png('second')] });
    const result = await adapter.publish(input);

    const uploaded = facebook.publishing.photos.slice(-2);
    expect(uploaded.map((photo) => photo.published)).toEqual([false, false]);
    expect(input.checkpoint.saves.slice(0, 2)).toEqual([{ photo0: uploaded[0]?.id }, { photo1: uploaded[1]?.id }]);
    expect(postOf(result.releaseId)).toMatchObject({ message: text, photoIds: uploaded.map((photo) => photo.id) });
    // Graph's param is `attached_media`, a list: one field of JSON, as Meta's SDKs send a list.
    const form = new URLSearchParams(requestsTo(`/${pageId}/feed`).at(-1)?.text);
    expect([...form.keys()].filter((name) => name.startsWith('attached_media'))).toEqual(['attached_media']);
    expect(JSON.parse(form.get('attached_media') ?? '')).toEqual(uploaded.map((photo) => ({ media_fbid: photo.id })));
  });

  it('reuses photos an earlier attempt uploaded instead of uploading them again', async () => {
    const text = unique('Retried album');
    const first = part(text, { media: [png(), png()] });
    facebook.publishing.failNext('pass', 'pass', graphError('An unexpected error has occurred.', 2, { status: 500 }));
    expect((await platformFailure(adapter.publish(first))).kind).toBe('retryable');
    const uploads = requestsTo(`/${pageId}/photos`).length;

    const result = await adapter.publish(part(text, { media: [png(), png()], checkpoint: first.checkpoint }));

    expect(requestsTo(`/${pageId}/photos`)).toHaveLength(uploads);
    const { photo0, photo1 } = first.checkpoint.values;
    expect(postOf(result.releaseId)?.photoIds).toEqual([photo0, photo1]);
  });

  it('uploads a video to the Page with the text as its description: the release is the video', async () => {
    const text = unique('Kneading, in 30 seconds');
    const bytes = sampleMp4(80_000);
    const result = await adapter.publish(part(text, { media: [mp4(bytes)] }));

    const video = facebook.publishing.videos.at(-1);
    expect(result).toEqual({ releaseId: video?.id, releaseURL: `https://www.facebook.com/${video?.id ?? ''}` });
    expect(video?.description).toBe(text);
    expect(video?.file.bytes.equals(bytes)).toBe(true);
  });

  it('comments on the post as the Page, with one photo attached by its unpublished id', async () => {
    const post = await adapter.publish(part(unique('Post to comment')));
    const bytes = solidPng(4, [10, 200, 10]);

    const comment = await adapter.comment(commentOn(post.releaseId, 'See the crumb', { media: [png(null, bytes)] }));

    const made = facebook.publishing.comments.at(-1);
    expect(comment).toEqual({ releaseId: made?.id, releaseURL: `https://www.facebook.com/${made?.id ?? ''}` });
    expect(made).toMatchObject({ objectId: post.releaseId, message: 'See the crumb', pageId });
    const photo = facebook.publishing.photos.find((candidate) => candidate.id === made?.photoId);
    expect(photo).toMatchObject({ published: false, usedBy: made?.id });
    expect(photo?.file.bytes.equals(bytes)).toBe(true);
  });

  it('comments on a video release', async () => {
    const video = await adapter.publish(part(unique('Video to comment'), { media: [mp4()] }));
    const comment = await adapter.comment(commentOn(video.releaseId, 'Recipe below'));
    expect(facebook.publishing.comments.find((made) => made.id === comment.releaseId)?.objectId).toBe(video.releaseId);
  });

  it('refuses Reels and stories, which it does not publish yet', async () => {
    const error = await platformFailure(adapter.publish(part('Reel', { settings: { type: 'reel' }, media: [mp4()] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/does not publish Facebook Reels yet/);
  });

  it('sends videos to graph-video.facebook.com in production and to the configured origin otherwise', () => {
    expect(videoHostOf('https://graph.facebook.com')).toBe('https://graph-video.facebook.com');
    expect(videoHostOf('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
  });
});

describe('facebook adapter: exactly once without an idempotency key', () => {
  it('marks the part before posting; a retry after a lost answer finds the post, not posting again', async () => {
    const text = unique('Lost answer');
    const input = part(text);
    facebook.publishing.failNext({ lose: true });
    const lost = facebook.publishing.lostResponses();

    expect((await platformFailure(adapter.publish(input))).kind).toBe('retryable');
    expect(facebook.publishing.lostResponses()).toBe(lost + 1);
    expect(input.checkpoint.values.sentAt).toMatch(/^\d+$/);

    const retried = await adapter.publish(part(text, { checkpoint: input.checkpoint }));
    const made = facebook.publishing.posts.filter((post) => post.message === text);
    expect(made).toHaveLength(1);
    expect(retried.releaseId).toBe(made[0]?.id);
  });

  it('finds a video whose answer was lost', async () => {
    const text = unique('Lost video');
    const input = part(text, { media: [mp4()] });
    facebook.publishing.failNext({ lose: true });
    await platformFailure(adapter.publish(input));

    const retried = await adapter.publish(part(text, { media: [mp4()], checkpoint: input.checkpoint }));

    const made = facebook.publishing.videos.filter((video) => video.description === text);
    expect(made.map((video) => video.id)).toEqual([retried.releaseId]);
  });

  it('finds a comment whose answer was lost among the post\'s comments', async () => {
    const post = await adapter.publish(part(unique('Commented once')));
    const input = commentOn(post.releaseId, 'Only once');
    facebook.publishing.failNext({ lose: true });
    await platformFailure(adapter.comment(input));

    const retried = await adapter.comment({ ...commentOn(post.releaseId, 'Only once'), checkpoint: input.checkpoint });

    const made = facebook.publishing.comments.filter((comment) => comment.objectId === post.releaseId);
    expect(made.map((comment) => comment.id)).toEqual([retried.releaseId]);
  });

  it('publishes on a retry that finds nothing on the Page (the first attempt never reached Graph)', async () => {
    const text = unique('Never arrived');
    const checkpoint = memoryCheckpoint({ sentAt: String(Math.floor(Date.now() / 1000)) });

    const result = await adapter.publish(part(text, { checkpoint }));

    const made = facebook.publishing.posts.filter((post) => post.message === text);
    expect(made.map((post) => post.id)).toEqual([result.releaseId]);
  });

  it('calls a repeat refused as a duplicate unconfirmed: the post exists where SPS could not see it', async () => {
    const text = unique('Already there');
    await adapter.publish(part(text));
    // A mark from later than the post: the look-up does not count it, and Graph refuses the repeat.
    const checkpoint = memoryCheckpoint({ sentAt: String(Math.floor(Date.now() / 1000) + 3600) });

    const error = await platformFailure(adapter.publish(part(text, { checkpoint })));

    expect(error.kind).toBe('unconfirmed');
    expect(facebook.publishing.posts.filter((post) => post.message === text)).toHaveLength(1);
  });
});

describe('facebook adapter: Graph refusals by code', () => {
  it.each([
    [32, 'Page request limit reached', 3],
    [613, 'Calls to this api have exceeded the rate limit.', 1],
    [80001, 'There have been too many calls to this Page account. Wait a bit and try again.', 5],
    [4, 'Application request limit reached', 2],
  ])('throttling code %i, sent as HTTP 400, waits for the usage header\'s reset', async (code, message, minutes) => {
    facebook.publishing.failNext(graphThrottle(code, pageId, minutes));
    const error = await platformFailure(adapter.publish(part(unique('Throttled'))));
    expect(error).toMatchObject({ kind: 'retryable', httpStatus: 400, retryAfterMs: minutes * 60_000 });
    expect(error.message).toBe(`(#${String(code)}) ${message}`);
  });

  it('calls a token Graph no longer accepts (190) disconnected: a Page token cannot be renewed', async () => {
    const message = 'Error validating access token: The user has not authorized application 1234.';
    facebook.publishing.failNext(graphError(message, 190, { subcode: 458 }));
    const error = await platformFailure(adapter.publish(part(unique('Revoked'))));
    expect(error).toMatchObject({ kind: 'disconnected', message });
  });

  it('calls a Page the user lost disconnected', async () => {
    const page = { id: '3001', name: 'Grace Labs', pictureUrl: 'https://x.example/3.jpg', tasks: ['MANAGE'] };
    facebook.addPages('grace', [page]);
    facebook.authority.consentingUser = 'grace';
    const context = { app: facebook.app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { authorized } = await authorizeAndConnect(facebookConnect, context);
    facebook.authority.consentingUser = 'ada';
    facebook.removePage('grace', '3001');
    const lostPage = { ...channel, accessToken: authorized.accounts[0]?.accessToken ?? '' };

    const error = await platformFailure(adapter.publish(part(unique('Lost Page'), { channel: lostPage })));

    expect(error.kind).toBe('disconnected');
  });

  it('calls a missing permission (200-299) disconnected, for the user to grant it again', async () => {
    const message = '(#200) The user hasn\'t authorized the application to perform this action';
    facebook.publishing.failNext(graphError(message, 200));
    expect((await platformFailure(adapter.publish(part(unique('No permission'))))).kind).toBe('disconnected');
  });

  it('keeps Meta\'s words for a policy block (368) and a duplicate (506), both permanent', async () => {
    const blocked = 'It looks like you were misusing this feature by going too fast.';
    facebook.publishing.failNext({
      status: 400,
      body: {
        error: { message: blocked, code: 368, type: 'OAuthException', error_user_msg: 'You are blocked for 1 hour.' },
      },
    });
    const policy = await platformFailure(adapter.publish(part(unique('Blocked'))));
    expect(policy).toMatchObject({ kind: 'permanent', message: `${blocked} (You are blocked for 1 hour.)` });

    const text = unique('Said twice');
    await adapter.publish(part(text));
    const duplicate = await platformFailure(adapter.publish(part(text)));
    expect(duplicate).toMatchObject({ kind: 'permanent', message: '(#506) Duplicate status message' });
  });

  it('retries what Meta calls transient', async () => {
    // A refusal whose code alone would be final: is_transient is what makes it worth another try.
    const transient = graphError('Please retry your request later.', 100, { transient: true });
    expect(transient.body).toMatchObject({ error: {
      message: 'Please retry your request later.', type: 'OAuthException', code: 100, is_transient: true,
    } });
    facebook.publishing.failNext(transient);
    expect((await platformFailure(adapter.publish(part(unique('Transient'))))).kind).toBe('retryable');
  });

  it('shows Graph\'s refusal of a photo over 4 MB as permanent', async () => {
    const big = samplePng(4_100_000);
    const error = await platformFailure(adapter.publish(part(unique('Too big'), { media: [png(null, big)] })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/smaller than 4 MB/);
  });
});

describe('facebook adapter: reads', () => {
  it('reads the Page\'s followers and likes', async () => {
    facebook.publishing.setPageCounters(pageId, { followers: 1520, fans: 1411 });
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Followers', value: 1520 },
      { label: 'Page likes', value: 1411 },
    ]);
  });

  it('reads a post\'s reactions, comments, shares, media views and unique viewers', async () => {
    const post = await adapter.publish(part(unique('Counted')));
    await adapter.comment(commentOn(post.releaseId, 'First!'));
    Object.assign(postOf(post.releaseId) ?? {}, { reactions: 12, shares: 3, mediaViews: 480, uniqueMediaViews: 300 });

    expect(await adapter.analytics?.post(channel, post.releaseId)).toEqual([
      { label: 'Reactions', value: 12 },
      { label: 'Comments', value: 1 },
      { label: 'Shares', value: 3 },
      { label: 'Views', value: 480 },
      { label: 'Unique viewers', value: 300 },
    ]);
  });

  it('reads a video\'s reactions and comments, and counts no shares Graph left out', async () => {
    const video = await adapter.publish(part(unique('Counted video'), { media: [mp4()] }));
    const post = facebook.publishing.posts.find((candidate) => candidate.videoId === video.releaseId);
    Object.assign(post ?? {}, { reactions: 7 });

    expect(await adapter.analytics?.post(channel, video.releaseId)).toEqual([
      { label: 'Reactions', value: 7 },
      { label: 'Comments', value: 0 },
    ]);
    const plain = await adapter.publish(part(unique('Never shared')));
    const counters = await adapter.analytics?.post(channel, plain.releaseId);
    expect(counters?.find((counter) => counter.label === 'Shares')).toEqual({ label: 'Shares', value: 0 });
  });

  it('lists the Page\'s latest posts, newest first', async () => {
    const latest = await adapter.publish(part(unique('Latest')));
    const recent = await adapter.recentContent(channel);
    expect(recent[0]).toEqual({ id: latest.releaseId, url: `https://www.facebook.com/${latest.releaseId}` });
    expect(recent.length).toBeGreaterThan(5);
    expect(recent.every((item) => item.id.startsWith(`${pageId}_`))).toBe(true);
  });
});
