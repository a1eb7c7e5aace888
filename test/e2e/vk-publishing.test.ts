import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { vkGuid } from '../../shared/platforms/vk/vk-send-once.ts';
import { startVkSimulator, type RunningVkSimulator } from '../simulators/vk/vk-simulator.ts';
import { api } from '../support/fixtures.ts';
import { postNow, publishNow, settledParts } from '../support/publish-now.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { makeTestMedia, type TestMedia } from '../support/test-media.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

const userId = 210700286;
/** The cap on a platform's "wait": VK's flood control asks for a minute, the tests for a second and a half. */
const maxWaitMs = 1_500;

/**
 * VK wall posts from POST /posts through the queue and the publish worker to the VK simulator,
 * on a channel connected through VK ID the way a user connects it. Exactly once rests on the
 * guid each part sends: these tests count the posts the simulator holds.
 */
describe('publishing to VK through the whole stack', () => {
  let vk: RunningVkSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: TestMedia;

  beforeAll(async () => {
    media = makeTestMedia();
    vk = await startVkSimulator({
      'user-1': {
        id: userId, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada',
        photo200: 'https://sun9-1.userapi.com/ada.jpg', followers: 12,
      },
    });
    ctx = await createTestContext({
      VK_CLIENT_ID: vk.clientId,
      VK_API_URL: vk.url,
      VK_AUTH_URL: vk.url,
      VK_TOKEN_URL: vk.url,
      // Two attempts: a throttled call that spent one would leave none for the next.
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxWaitMs),
      // A lost answer is noticed when the request times out.
      PLATFORM_TIMEOUT_MS: '1500',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await vk.close();
    rmSync(media.dir, { recursive: true, force: true });
  });

  /**
   * An organization that connected its VK account itself: `GET /social/vk` with its key, VK ID's
   * consent page, then the api's callback with the redirect's code, state and device_id.
   */
  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    const name = `Org ${Math.random().toString(36).slice(2, 8)}`;
    const org = await createOrganization(ctx.db, ctx.secrets, { name });
    const started = await api(stack.baseUrl, org.apiKey, '/api/public/v1/social/vk');
    expect(started.status).toBe(200);
    const { url } = started.body as { url: string };
    const consent = await fetch(url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    expect(back.searchParams.get('device_id')).not.toBeNull();
    const page = await fetch(`${stack.baseUrl}${back.pathname}${back.search}`, { redirect: 'manual' });
    const html = await page.text();
    const channelId = /channel <code>([0-9a-f]{24})<\/code>/.exec(html)?.[1];
    if (page.status !== 200 || channelId === undefined) {
      throw new Error(`the callback answered ${String(page.status)}: ${html.slice(0, 300)}`);
    }
    return { apiKey: org.apiKey, channelId };
  }

  async function upload(apiKey: string, path: string, name: string): Promise<{ id: string; path: string }> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path)]), name);
    const answer = await fetch(`${stack.baseUrl}/api/public/v1/upload`, {
      method: 'POST', body: form, headers: { Authorization: apiKey },
    });
    expect(answer.status).toBe(201);
    // The answer describes the file at length; a post refers to it by id and path.
    const { id, path: stored } = await answer.json() as { id: string; path: string };
    return { id, path: stored };
  }

  async function post(
    org: { apiKey: string; channelId: string },
    value: { content: string; image?: { id: string; path: string; alt?: string }[] }[],
  ): Promise<string> {
    const answer = await postNow(stack.baseUrl, org, value);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  const postsWith = (text: string) => vk.records.posts.filter((item) => item.text === text);

  it('publishes a wall post with a photo and its comment, then a post with a video', async () => {
    const org = await organization();
    const photo = await upload(org.apiKey, media.png, 'card.png');
    const postId = await post(org, [
      { content: 'VK e2e with a photo', image: [{ ...photo, alt: 'A test card' }] },
      { content: 'VK e2e comment' },
    ]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const [wallPost] = postsWith('VK e2e with a photo');
    const reference = (item: { ownerId: number; id: number }) => `photo${String(item.ownerId)}_${String(item.id)}`;
    const saved = vk.records.photos.find((item) => reference(item) === wallPost?.attachments[0]);
    expect(saved).toMatchObject({ ownerId: userId, fileName: 'card.png' });
    expect(parts[0]?.releaseId).toBe(`${String(userId)}_${String(wallPost?.id)}`);
    expect(parts[0]?.releaseURL).toBe(`https://vk.com/wall${String(userId)}_${String(wallPost?.id)}`);
    const comment = vk.records.comments.find((item) => item.text === 'VK e2e comment');
    const commentGuid = vkGuid(`sps-post-${parts[1]?._id.toString() ?? ''}`);
    expect(comment).toMatchObject({ ownerId: userId, postId: wallPost?.id, guid: commentGuid });
    expect(parts[1]?.releaseId).toBe(`${parts[0]?.releaseId ?? ''}_${String(comment?.id)}`);
    expect(wallPost?.guid).toBe(vkGuid(`sps-post-${postId}`));

    const video = await upload(org.apiKey, media.mp4, 'clip.mp4');
    const videoPostId = await post(org, [{ content: 'VK e2e with a video', image: [video] }]);
    const [videoPart] = await settledParts(ctx.db, videoPostId);
    expect(videoPart?.state).toBe('PUBLISHED');
    const [videoPost] = postsWith('VK e2e with a video');
    const made = vk.records.videos.at(-1);
    expect(made).toMatchObject({ ownerId: userId, uploaded: true, fileName: 'clip.mp4' });
    expect(videoPost?.attachments).toEqual([`video${String(userId)}_${String(made?.id)}`]);
  });

  it('refuses at POST /posts a photo VK would refuse (WebP)', async () => {
    const org = await organization();
    const webp = await upload(org.apiKey, media.webp, 'picture.webp');
    const answer = await postNow(stack.baseUrl, org, [{ content: 'WebP', image: [webp] }]);

    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('VK takes JPEG, PNG or GIF photos');
    expect(postsWith('WebP')).toHaveLength(0);
  });

  it('posts once when VK accepted the post and the answer was lost: the retry\'s guid gets the same post', async () => {
    const org = await organization();
    const lostBefore = vk.lostResponses;
    vk.failNext('wall.post', { loseResponse: true });
    const postId = await publishNow(stack.baseUrl, org, ['VK lost answer']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(vk.lostResponses).toBe(lostBefore + 1);

    const made = postsWith('VK lost answer');
    expect(made).toHaveLength(1);
    const sent = vk.calls('wall.post').filter((call) => call.get('message') === 'VK lost answer');
    expect(sent.map((call) => call.get('guid'))).toEqual([vkGuid(`sps-post-${postId}`), vkGuid(`sps-post-${postId}`)]);
    expect(root?.releaseId).toBe(`${String(userId)}_${String(made[0]?.id)}`);
  });

  it('waits out VK\'s per-second cap and flood control without spending an attempt', async () => {
    const org = await organization();
    vk.failNext(
      'wall.post',
      { error: 6, message: 'Too many requests per second' },
      { error: 9, message: 'Flood control' },
    );
    const started = Date.now();
    const postId = await publishNow(stack.baseUrl, org, ['VK throttled']);
    const [root] = await settledParts(ctx.db, postId);

    // Two refusals and two attempts: had either refusal spent one, the post would have failed.
    expect(root?.state).toBe('PUBLISHED');
    expect(postsWith('VK throttled')).toHaveLength(1);
    expect(vk.calls('wall.post').filter((call) => call.get('message') === 'VK throttled')).toHaveLength(3);
    // Error 6 asks for a second, error 9 for a minute (capped here): the job waited both out.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000 + maxWaitMs);
  });

  it('flags the channel when VK refuses the token (error 5) and VK ID refuses the refresh', async () => {
    const org = await organization();
    // The user revoked the app: the access token fails with error 5 and the refresh token with invalid_grant.
    vk.authority.revokeAll();
    const postId = await publishNow(stack.baseUrl, org, ['VK revoked']);
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsWith('VK revoked')).toHaveLength(0);
    const refreshes = vk.received.filter((request) => request.path === '/oauth2/auth'
      && new URLSearchParams(request.text).get('grant_type') === 'refresh_token');
    expect(refreshes.length).toBeGreaterThan(0);
  });
});
