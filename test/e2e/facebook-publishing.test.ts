import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DashboardClient, newAccount } from '../browser/dashboard-client.ts';
import { startFacebookSimulator, type FacebookSimulator } from '../simulators/facebook/facebook-simulator.ts';
import { graphError } from '../simulators/facebook/meta-graph-simulation.ts';
import { graphThrottle } from '../simulators/facebook/page-publishing-simulation.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { makeTestMedia } from '../support/test-media.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const v1 = '/api/public/v1';
const files = makeTestMedia();
const uploadedFile = z.object({ id: z.string(), path: z.string() });
type Uploaded = z.infer<typeof uploadedFile>;

/**
 * Facebook Page publishing from POST /posts through the queue and the publish worker to the
 * Facebook simulator, on Pages connected the way users connect them: Facebook Login's consent,
 * the dashboard's callback and its Page picker. Exactly once rests on the part's checkpoint and
 * a look-up on the Page: these tests count what the simulated Page holds.
 */
describe('publishing to a Facebook Page through the whole stack', () => {
  let facebook: FacebookSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let frontendUrl = '';
  let dashboard: DashboardClient;
  let apiKey = '';

  beforeAll(async () => {
    facebook = await startFacebookSimulator();
    facebook.addPages('ada', [
      { id: '1001', name: 'Ada Bakery', pictureUrl: 'https://scontent.example/1001.jpg', tasks: ['CREATE_CONTENT'] },
      { id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg', tasks: ['CREATE_CONTENT'] },
    ]);
    facebook.authority.consentingUser = 'ada';
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      ...oauthSimulatorSettings('facebook', facebook),
      FRONTEND_URL: frontendUrl,
      PUBLISH_ATTEMPTS: '5',
      PUBLISH_BACKOFF_MS: '20',
      PLATFORM_TIMEOUT_MS: '2000',
      // Meta names its reset in minutes: a test waits this long instead.
      PUBLISH_MAX_RETRY_AFTER_MS: '1200',
    });
    stack = await startStack(ctx, { port });
    dashboard = new DashboardClient(stack.baseUrl);
    expect((await dashboard.signUp(newAccount('facebook'))).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    expect(apiKey).not.toBe('');
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await facebook.close();
    rmSync(files.dir, { recursive: true, force: true });
  });

  /** Facebook Login's consent, the dashboard's callback, and the Page picked in the picker. */
  async function connectPage(pageId: string): Promise<{ apiKey: string; channelId: string }> {
    const started = await api(stack.baseUrl, apiKey, `${v1}/social/facebook`);
    expect(started.status).toBe(200);
    const consent = await fetch(z.object({ url: z.url() }).parse(started.body).url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    const pickPath = callback.location ?? '';
    expect(pickPath).toMatch(/^\/channels\/pick\/facebook\?key=/);
    const picker = await dashboard.get(pickPath);
    expect(picker.html).toContain(`value="${pageId}"`);
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    const picked = await dashboard.post('/channels/pick/facebook', { key, account: pageId });
    const channelId = /^\/channels\?connected=([0-9a-f]{24})$/.exec(picked.location ?? '')?.[1] ?? '';
    expect(channelId).not.toBe('');
    return { apiKey, channelId };
  }

  async function upload(path: string, name: string): Promise<Uploaded> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path)]), name);
    const headers = { Authorization: apiKey };
    const response = await fetch(`${stack.baseUrl}${v1}/upload`, { method: 'POST', body: form, headers });
    expect(response.status).toBe(201);
    return uploadedFile.parse(await response.json());
  }

  async function publishWithMedia(
    channelId: string,
    parts: { content: string; image?: Uploaded[] }[],
  ): Promise<string> {
    const value = parts.map((part) => ({ content: part.content, image: part.image ?? [] }));
    const response = await api(stack.baseUrl, apiKey, `${v1}/posts`, {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: channelId }, settings: {}, value }] },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }


  let books: { apiKey: string; channelId: string };
  beforeAll(async () => {
    books = await connectPage('1002');
  });

  it('publishes a photo post and a comment under it on the picked Page', async () => {
    const photo = await upload(files.png, 'bread.png');
    const postId = await publishWithMedia(books.channelId, [
      { content: 'E2E photo post', image: [photo] },
      { content: 'E2E comment' },
    ]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const post = facebook.publishing.posts.find((candidate) => candidate.message === 'E2E photo post');
    expect(post?.pageId).toBe('1002');
    expect(parts[0]?.releaseId).toBe(post?.id);
    expect(parts[0]?.releaseURL).toBe(`https://www.facebook.com/${post?.id ?? ''}`);
    const published = facebook.publishing.photos.find((candidate) => candidate.id === post?.photoIds[0]);
    expect(published?.file.bytes.equals(readFileSync(files.png))).toBe(true);
    const comment = facebook.publishing.comments.find((candidate) => candidate.message === 'E2E comment');
    expect(comment?.objectId).toBe(post?.id);
    expect(parts[1]?.releaseId).toBe(comment?.id);
  });

  it('publishes two photos as one post', async () => {
    const first = await upload(files.png, 'one.png');
    const second = await upload(files.jpeg, 'two.jpg');
    const postId = await publishWithMedia(books.channelId, [{ content: 'E2E two photos', image: [first, second] }]);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const post = facebook.publishing.posts.find((candidate) => candidate.id === root?.releaseId);
    expect(post?.message).toBe('E2E two photos');
    const photos = post?.photoIds.map((id) => facebook.publishing.photos.find((photo) => photo.id === id));
    expect(photos?.map((photo) => photo?.published)).toEqual([false, false]);
    expect(photos?.[1]?.file.bytes.equals(readFileSync(files.jpeg))).toBe(true);
  });

  it('publishes a video with the text as its description', async () => {
    const clip = await upload(files.mp4, 'clip.mp4');
    const postId = await publishWithMedia(books.channelId, [{ content: 'E2E video', image: [clip] }]);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const video = facebook.publishing.videos.find((candidate) => candidate.id === root?.releaseId);
    expect(video?.description).toBe('E2E video');
    expect(video?.file.bytes.equals(readFileSync(files.mp4))).toBe(true);
  });

  it('answers 400 at POST /posts for a photo format Facebook does not take, and sends nothing', async () => {
    const webp = await upload(files.webp, 'photo.webp');
    const photoUploads = facebook.publishing.photos.length;
    const response = await api(stack.baseUrl, apiKey, `${v1}/posts`, {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{ integration: { id: books.channelId }, value: [{ content: 'WebP', image: [webp] }] }],
      },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('Facebook takes JPEG, PNG, GIF, BMP or TIFF photos');
    expect(facebook.publishing.photos).toHaveLength(photoUploads);
  });

  it('posts once when Graph made the post and its answer was lost: the retry finds it on the Page', async () => {
    const lost = facebook.publishing.lostResponses();
    facebook.publishing.failNext({ lose: true });
    const postId = await publishNow(stack.baseUrl, books, ['E2E lost answer']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(facebook.publishing.lostResponses()).toBe(lost + 1);

    const made = facebook.publishing.posts.filter((post) => post.message === 'E2E lost answer');
    expect(made.map((post) => post.id)).toEqual([root?.releaseId]);
    const lookUps = facebook.received.filter((request) => request.path.endsWith('/1002/published_posts'));
    expect(lookUps.length).toBeGreaterThan(0);
  });

  it.each([32, 613])('waits for the usage header\'s reset on code %i (HTTP 400), spending no attempt', async (code) => {
    const text = `E2E throttled ${String(code)}`;
    facebook.publishing.failNext(graphThrottle(code, '1002', 1));
    const feedCalls = () => facebook.received.filter((request) => request.method === 'POST'
      && request.path === '/v26.0/1002/feed' && new URLSearchParams(request.text).get('message') === text);
    const postId = await publishNow(stack.baseUrl, books, [text]);
    const firstTry = await waitFor(() => (feedCalls().length > 0 ? Date.now() : undefined), { what: 'the first try' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; the reset (a minute, capped at 1.2 s) is waited for.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(900);
    expect(feedCalls()).toHaveLength(2);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post and flags the channel when Graph refuses the Page token (190)', async () => {
    const bakery = await connectPage('1001');
    const message = 'Error validating access token: The session has been invalidated because the user changed '
      + 'their password.';
    facebook.publishing.failNext(graphError(message, 190, { subcode: 460 }));
    const postId = await publishNow(stack.baseUrl, bakery, ['E2E refused token']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe(message);
    const channel = await ctx.db.channels.findOne({ _id: bakery.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(facebook.publishing.posts.some((post) => post.message === 'E2E refused token')).toBe(false);
  });
});
