import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startVkSimulator, type RunningVkSimulator } from '../../../test/simulators/vk/vk-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createVkAdapter } from './adapter.ts';
import { vkConnect } from './connect.ts';
import { vkGuid } from './vk-send-once.ts';
import { VkPacer } from './vk-pacer.ts';

const userId = 210700286;
const communityId = 42;

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

function file(kind: 'image' | 'video', alt: string | null = null): PublishMedia {
  const bytes = kind === 'image' ? samplePng() : sampleMp4(50_000);
  const mimeType = kind === 'image' ? 'image/png' : 'video/mp4';
  const fileName = kind === 'image' ? 'card.png' : 'clip.mp4';
  const open = () => Promise.resolve(Readable.from([bytes]));
  return { kind, mimeType, size: bytes.length, fileName, alt, url: `http://127.0.0.1/uploads/${fileName}`, open };
}

describe('VK adapter against the simulator', () => {
  let vk: RunningVkSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;
  let keys = 0;

  beforeAll(async () => {
    vk = await startVkSimulator({
      'user-1': {
        id: userId, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada',
        photo200: 'https://sun9-1.userapi.com/ada.jpg', followers: 1_815,
      },
    });
    vk.addGroup({
      id: communityId, name: 'Analytical Engines', screenName: 'engines', managers: [userId], members: 900,
    });
    vk.addGroup({ id: 77, name: 'Someone Else\'s', screenName: 'else', managers: [1], members: 5 });
    const { url } = vk;
    const app = { clientId: vk.clientId, clientSecret: null, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    const context: ConnectContext = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { tokens } = await authorizeAndConnect(vkConnect, context, 'https://sps.example/channels/callback/vk');
    channel = { channelId: 'c1', accessToken: tokens.accessToken, instanceUrl: null };
    // VK's one-second window, shortened on both sides so the paced calls of 31 tests take seconds, not minutes.
    vk.rateWindowMs = 150;
    adapter = createVkAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app, new VkPacer(3, 200));
  });
  afterAll(async () => { await vk.close(); });
  beforeEach(() => {
    vk.now = Date.now;
    vk.guidRepeat = 'earlier-item';
  });

  const nextKey = () => {
    keys += 1;
    return `sps-post-part-${String(keys)}`;
  };

  function publish(
    content: string,
    extra: {
      media?: PublishMedia[]; settings?: Record<string, unknown>; checkpoint?: MemoryCheckpoint; key?: string;
    } = {},
  ) {
    return adapter.publish({
      channel,
      content,
      media: extra.media ?? [],
      settings: extra.settings ?? {},
      idempotencyKey: extra.key ?? nextKey(),
      checkpoint: extra.checkpoint ?? memoryCheckpoint(),
    });
  }

  const postsWith = (text: string) => vk.records.posts.filter((post) => post.text === text);
  const lastCall = (method: string) => vk.calls(method).at(-1);

  describe('wall posts', () => {
    it('posts on the user\'s wall with the part\'s guid, the token and version in the form body', async () => {
      const key = nextKey();
      const result = await publish('Hello, VK', { key, settings: { close_comments: true, mute_notifications: true } });

      const [post] = postsWith('Hello, VK');
      expect(post).toMatchObject({ ownerId: userId, fromId: userId, closeComments: true, muteNotifications: true });
      expect(result).toEqual({
        releaseId: `${String(userId)}_${String(post?.id)}`,
        releaseURL: `https://vk.com/wall${String(userId)}_${String(post?.id)}`,
      });
      const sent = vk.received.filter((request) => request.path === '/method/wall.post').at(-1);
      expect(sent?.query.has('access_token')).toBe(false);
      const form = lastCall('wall.post');
      expect(form?.get('v')).toBe('5.199');
      expect(form?.get('owner_id')).toBe(String(userId));
      expect(form?.get('guid')).toBe(vkGuid(key));
      expect(form?.has('from_group')).toBe(false);
    });

    it('gives every part its own guid, and the same one on every attempt at a part', () => {
      expect(vkGuid('sps-post-a')).toBe(vkGuid('sps-post-a'));
      expect(vkGuid('sps-post-a')).not.toBe(vkGuid('sps-post-b'));
      expect(vkGuid('sps-post-a')).toMatch(/^[0-9a-f]{32}$/);
    });

    it('posts on a managed community\'s wall as the community, signed, with its uploads made for it', async () => {
      const copyright = 'https://example.com/src';
      const settings = { community_id: communityId, from_group: true, signed: true, copyright };
      const result = await publish('From the community', { settings, media: [file('image')] });

      const [post] = postsWith('From the community');
      expect(post).toMatchObject({
        ownerId: -communityId, fromId: -communityId, fromGroup: true, signed: true, copyright,
      });
      expect(result.releaseURL).toBe(`https://vk.com/wall-${String(communityId)}_${String(post?.id)}`);
      expect(lastCall('photos.getWallUploadServer')?.get('group_id')).toBe(String(communityId));
      expect(lastCall('photos.saveWallPhoto')?.get('group_id')).toBe(String(communityId));
      expect(post?.attachments[0]).toMatch(new RegExp(`^photo-${String(communityId)}_\\d+$`));
    });

    it('shows VK\'s refusal of a community the user does not manage (error 214) as permanent', async () => {
      const error = await failure(publish('Not mine', { settings: { community_id: 77 } }));

      expect(error.kind).toBe('permanent');
      expect(error.message).toBe('VK wall.post: Access to adding post denied (error 214)');
    });
  });

  describe('photos and videos', () => {
    it('uploads a photo through the wall upload server, attaches photo{owner}_{id}, its alt the caption', async () => {
      // users.get, getWallUploadServer, saveWallPhoto and wall.post: four calls, paced under 3 a second.
      await publish('With a photo', { media: [file('image', 'A test card')] });

      const [post] = postsWith('With a photo');
      const photo = vk.records.photos.at(-1);
      expect(post?.attachments).toEqual([`photo${String(userId)}_${String(photo?.id)}`]);
      expect(photo?.fileName).toBe('card.png');
      const saved = lastCall('photos.saveWallPhoto');
      expect(saved?.get('user_id')).toBe(String(userId));
      expect(saved?.get('caption')).toBe('A test card');
      const upload = vk.received.filter((request) => request.path.startsWith('/upload/photo/')).at(-1);
      expect(upload?.text).toContain('name="photo"; filename="card.png"');
    });

    it('saves a video, sends its file as video_file, and attaches video{owner}_{id}', async () => {
      await publish('With a video', { media: [file('video', 'Two seconds')] });

      const [post] = postsWith('With a video');
      const video = vk.records.videos.at(-1);
      expect(video).toMatchObject({ uploaded: true, fileName: 'clip.mp4', name: 'clip.mp4' });
      expect(post?.attachments).toEqual([`video${String(userId)}_${String(video?.id)}`]);
      expect(lastCall('video.save')?.get('wallpost')).toBe('0');
      const upload = vk.received.filter((request) => request.path.startsWith('/upload/video/')).at(-1);
      expect(upload?.text).toContain('name="video_file"; filename="clip.mp4"');
    });

    it('attaches media an earlier attempt uploaded, from the checkpoint, instead of uploading again', async () => {
      const checkpoint = memoryCheckpoint();
      const key = nextKey();
      vk.failNext('wall.post', { error: 10, message: 'Internal server error' });
      const media = () => [file('image'), file('video')];
      const first = await failure(publish('Retried with media', { key, checkpoint, media: media() }));
      expect(first.kind).toBe('retryable');
      const uploadsBefore = vk.calls('photos.getWallUploadServer').length + vk.calls('video.save').length;
      expect(checkpoint.values.attachment0).toMatch(/^photo\d+_\d+$/);
      expect(checkpoint.values.attachment1).toMatch(/^video\d+_\d+$/);

      await publish('Retried with media', { key, checkpoint, media: media() });
      expect(vk.calls('photos.getWallUploadServer').length + vk.calls('video.save').length).toBe(uploadsBefore);
      expect(postsWith('Retried with media')).toHaveLength(1);
      const { attachment0, attachment1 } = checkpoint.values;
      expect(postsWith('Retried with media')[0]?.attachments).toEqual([attachment0, attachment1]);
    });
  });

  describe('comments', () => {
    it('publishes later parts as comments on the thread\'s post, each with its own guid', async () => {
      const root = await publish('Thread root');
      const secondKey = nextKey();
      const second = await adapter.comment({
        channel, content: 'Thread 2/3', media: [file('image')], settings: {}, idempotencyKey: secondKey,
        checkpoint: memoryCheckpoint(), parentReleaseId: root.releaseId,
      });
      const third = await adapter.comment({
        channel, content: 'Thread 3/3', media: [], settings: {}, idempotencyKey: nextKey(),
        checkpoint: memoryCheckpoint(), parentReleaseId: second.releaseId,
      });

      const [post] = postsWith('Thread root');
      const comments = vk.records.comments.filter((item) => item.postId === post?.id);
      expect(comments.map((item) => item.text)).toEqual(['Thread 2/3', 'Thread 3/3']);
      expect(comments[0]?.attachments[0]).toMatch(/^photo\d+_\d+$/);
      expect(comments[0]?.guid).toBe(vkGuid(secondKey));
      expect(second).toEqual({
        releaseId: `${root.releaseId}_${String(comments[0]?.id)}`,
        releaseURL: `${root.releaseURL}?reply=${String(comments[0]?.id)}`,
      });
      expect(third.releaseId).toBe(`${root.releaseId}_${String(comments[1]?.id)}`);
    });

    it('comments as the community on a community post published as the community', async () => {
      const settings = { community_id: communityId, from_group: true };
      const root = await publish('Community thread', { settings });
      await adapter.comment({
        channel, content: 'Community reply', media: [], settings, idempotencyKey: nextKey(),
        checkpoint: memoryCheckpoint(), parentReleaseId: root.releaseId,
      });

      expect(lastCall('wall.createComment')?.get('from_group')).toBe(String(communityId));
      expect(vk.records.comments.at(-1)).toMatchObject({ text: 'Community reply', fromId: -communityId });
    });
  });

  describe('exactly once', () => {
    it('takes the post VK made when the answer was lost: the retry\'s guid gets the same post back', async () => {
      const checkpoint = memoryCheckpoint();
      const key = nextKey();
      vk.failNext('wall.post', { loseResponse: true });
      const lost = await failure(publish('Answer lost', { key, checkpoint }));
      expect(lost.kind).toBe('retryable');
      expect(Number(checkpoint.values.sentAt)).toBeGreaterThan(0);

      const retried = await publish('Answer lost', { key, checkpoint });
      const made = postsWith('Answer lost');
      expect(made).toHaveLength(1);
      expect(retried.releaseId).toBe(`${String(userId)}_${String(made[0]?.id)}`);
      expect(vk.calls('wall.post').filter((call) => call.get('message') === 'Answer lost')).toHaveLength(2);
    });

    it('takes a comment VK made when the answer was lost', async () => {
      const root = await publish('Lost comment root');
      const checkpoint = memoryCheckpoint();
      const input = {
        channel, content: 'Lost comment', media: [], settings: {}, idempotencyKey: nextKey(), checkpoint,
        parentReleaseId: root.releaseId,
      };
      vk.failNext('wall.createComment', { loseResponse: true });
      expect((await failure(adapter.comment(input))).kind).toBe('retryable');
      const retried = await adapter.comment(input);

      const made = vk.records.comments.filter((item) => item.text === 'Lost comment');
      expect(made).toHaveLength(1);
      expect(retried.releaseId).toBe(`${root.releaseId}_${String(made[0]?.id)}`);
    });

    it('finds the post on the wall when VK refuses the guid as already used without naming the post', async () => {
      const checkpoint = memoryCheckpoint();
      const key = nextKey();
      vk.failNext('wall.post', { loseResponse: true });
      await failure(publish('Refused repeat', { key, checkpoint, media: [file('image')] }));
      vk.guidRepeat = 'refuse';

      const retried = await publish('Refused repeat', { key, checkpoint, media: [file('image')] });
      const made = postsWith('Refused repeat');
      expect(made).toHaveLength(1);
      expect(retried.releaseId).toBe(`${String(userId)}_${String(made[0]?.id)}`);
      expect(lastCall('wall.get')?.get('owner_id')).toBe(String(userId));
    });

    it('reads the wall instead of sending again once VK\'s hour for the guid has passed', async () => {
      const checkpoint = memoryCheckpoint();
      const key = nextKey();
      vk.failNext('wall.post', { loseResponse: true });
      await failure(publish('Past the hour', { key, checkpoint }));
      const postsSent = vk.calls('wall.post').length;
      await checkpoint.save({ sentAt: String(Date.now() - 2 * 60 * 60_000) });
      vk.now = () => Date.now() + 2 * 60 * 60_000;

      const retried = await publish('Past the hour', { key, checkpoint });
      expect(vk.calls('wall.post')).toHaveLength(postsSent);
      expect(postsWith('Past the hour')).toHaveLength(1);
      expect(retried.releaseId).toBe(`${String(userId)}_${String(postsWith('Past the hour')[0]?.id)}`);
    });

    it('sets the part aside as unconfirmed when VK\'s hour has passed and the post is not on the wall', async () => {
      const checkpoint = memoryCheckpoint({ sentAt: String(Date.now() - 2 * 60 * 60_000) });
      const postsSent = vk.calls('wall.post').length;
      const error = await failure(publish('Never seen', { checkpoint }));

      expect(error.kind).toBe('unconfirmed');
      expect(vk.calls('wall.post')).toHaveLength(postsSent);
    });

    it('sets the part aside as unconfirmed when VK refuses the guid and the wall does not show the post', async () => {
      vk.guidRepeat = 'refuse';
      const key = nextKey();
      await publish('Seen once', { key });
      const error = await failure(publish('Seen once, but edited', { key, checkpoint: memoryCheckpoint() }));

      expect(error.kind).toBe('unconfirmed');
      expect(error.message).toContain('already published');
    });

    it('clears the mark of a send VK answered with a refusal: nothing was made, the retry posts afresh', async () => {
      const checkpoint = memoryCheckpoint();
      vk.failNext('wall.post', { error: 9, message: 'Flood control' });
      await failure(publish('Refused once', { checkpoint }));

      expect(checkpoint.values.sentAt).toBe('');
      expect(checkpoint.saves.map((save) => Object.keys(save))).toEqual([['sentAt'], ['sentAt']]);
    });
  });

  describe('errors', () => {
    it.each([
      [6, 'Too many requests per second', 'retryable', 1_000],
      [9, 'Flood control', 'retryable', 60_000],
      [29, 'Rate limit reached', 'retryable', 3_600_000],
      [10, 'Internal server error', 'retryable', null],
      [5, 'User authorization failed: access_token has expired.', 'refresh_token', null],
      [27, 'Group authorization failed', 'disconnected', null],
      [15, 'Access denied', 'permanent', null],
      [203, 'Access to group denied', 'permanent', null],
      [214, 'Access to adding post denied', 'permanent', null],
      [100, 'One of the parameters specified was missing or invalid: message is too long', 'permanent', null],
    ])('classifies error %i (%s) as %s', async (code, message, kind, retryAfterMs) => {
      vk.failNext('wall.post', { error: code, message });
      const error = await failure(publish(`Error ${String(code)}`));

      expect(error.kind).toBe(kind);
      expect(error.retryAfterMs).toBe(retryAfterMs);
      expect(error.message).toBe(`VK wall.post: ${message} (error ${String(code)})`);
      expect(postsWith(`Error ${String(code)}`)).toHaveLength(0);
    });

    it('asks for a refresh when VK no longer takes the token', async () => {
      const error = await failure(adapter.publish({
        channel: { ...channel, accessToken: 'at-expired' }, content: 'Expired', media: [], settings: {},
        idempotencyKey: nextKey(), checkpoint: memoryCheckpoint(),
      }));

      expect(error.kind).toBe('refresh_token');
      expect(error.message).toBe('VK users.get: User authorization failed: invalid access_token (4). (error 5)');
    });

    it('is refused with error 6 by VK when calls are not paced, which the adapter\'s own calls never are', async () => {
      const call = () => fetch(`${vk.url}/method/users.get`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: channel.accessToken, v: '5.199' }),
      }).then(async (answer) => (await answer.json()) as { error?: { error_code: number } });
      const windowPasses = () => new Promise((resolve) => setTimeout(resolve, 1_100));
      await windowPasses();
      const answers = [await call(), await call(), await call(), await call()];
      // The adapter's pacer did not see these calls: let VK's window pass before the next test.
      await windowPasses();

      expect(answers.map((answer) => answer.error?.error_code ?? 'ok')).toEqual(['ok', 'ok', 'ok', 6]);
    });
  });

  describe('tools, analytics and recent content', () => {
    it('lists the communities the user administers or edits', async () => {
      const listed = await adapter.tools.managedCommunities?.(channel, {});

      expect(listed).toEqual([
        {
          id: communityId, name: 'Analytical Engines', screenName: 'engines',
          picture: 'https://sun9-2.userapi.com/engines.jpg',
        },
      ]);
      expect(lastCall('groups.get')?.get('filter')).toBe('admin,editor');
    });

    it('reads the account\'s followers and a post\'s likes, reposts, comments and views', async () => {
      const root = await publish('Counted');
      await adapter.comment({
        channel, content: 'A comment', media: [], settings: {}, idempotencyKey: nextKey(),
        checkpoint: memoryCheckpoint(), parentReleaseId: root.releaseId,
      });
      const post = postsWith('Counted')[0];
      if (post === undefined) throw new Error('the post was not made');
      Object.assign(post, { likes: 12, reposts: 3, views: 140 });

      expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Followers', value: 1_815 }]);
      expect(await adapter.analytics?.post(channel, root.releaseId)).toEqual([
        { label: 'Likes', value: 12 },
        { label: 'Reposts', value: 3 },
        { label: 'Comments', value: 1 },
        { label: 'Views', value: 140 },
      ]);
      expect(lastCall('wall.getById')?.get('posts')).toBe(root.releaseId);
    });

    it('lists the wall\'s latest posts, newest first, as release ids and URLs', async () => {
      const older = await publish('Recent 1');
      const newer = await publish('Recent 2');
      const recent = await adapter.recentContent(channel);

      expect(recent.slice(0, 2)).toEqual([
        { id: newer.releaseId, url: newer.releaseURL },
        { id: older.releaseId, url: older.releaseURL },
      ]);
    });
  });
});
