import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DashboardClient, newAccount, type PageAnswer } from '../browser/dashboard-client.ts';
import { expiredToken } from '../simulators/facebook/meta-graph-simulation.ts';
import {
  startInstagramStandaloneSimulator, type InstagramStandaloneSimulator,
} from '../simulators/instagram-standalone/instagram-standalone-simulator.ts';
import {
  throttledAnswer, type InstagramContentSimulation,
} from '../simulators/instagram/instagram-content-simulation.ts';
import { startInstagramSimulator, type InstagramSimulator } from '../simulators/instagram/instagram-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { settledParts } from '../support/publish-now.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const v1 = '/api/public/v1';
const bakery = '17841400000000001';
const books = '17841400000000002';
const picture = (name: string) => `https://cdninstagram.example/${name}.jpg`;

/** A JPEG and a 4-second portrait MP4 (H.264 and AAC), made here with ffmpeg: Instagram takes both. */
function makeMedia(): { dir: string; jpeg: string; mp4: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-instagram-'));
  synthesizedMedia(['-f', 'lavfi', '-i', 'testsrc=size=640x640', '-frames:v', '1'], path.join(dir, 'square.jpg'));
  synthesizedMedia([
    '-f', 'lavfi', '-i', 'testsrc=size=360x640:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100',
    '-t', '4', '-c:v', 'libx264', '-profile:v', 'main', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest',
    '-movflags', '+faststart',
  ], path.join(dir, 'reel.mp4'));
  return { dir, jpeg: path.join(dir, 'square.jpg'), mp4: path.join(dir, 'reel.mp4') };
}

const uploadAnswer = z.object({ id: z.string(), path: z.string() });

/**
 * Instagram posts from POST /posts through the queue and the publish worker to the simulated
 * Graph hosts, for both ways of connecting (Facebook Login with its Page picker, Instagram
 * Login), on channels connected through the dashboard. The simulators fetch each image and video
 * from the stack's own UPLOADS_PUBLIC_URL, as Instagram's servers do. Exactly once rests on the
 * container ids checkpointed on the part: these tests count the media the simulator holds.
 */
describe('publishing to Instagram through the whole stack', () => {
  let facebookLogin: InstagramSimulator;
  let instagramLogin: InstagramStandaloneSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let dashboard: DashboardClient;
  let apiKey = '';
  let frontendUrl = '';
  const media = makeMedia();
  const channels = new Map<string, string>();

  beforeAll(async () => {
    [facebookLogin, instagramLogin] = await Promise.all([
      startInstagramSimulator(), startInstagramStandaloneSimulator(),
    ]);
    facebookLogin.linkAccount('ada', { id: '1001', name: 'Ada Bakery' }, {
      id: bakery, username: 'ada.bakes', name: 'Ada Bakery', profilePictureUrl: picture('ada'),
    });
    facebookLogin.linkAccount('ada', { id: '1002', name: 'Ada Books' }, {
      id: books, username: 'ada.reads', name: 'Ada Reads', profilePictureUrl: picture('books'),
    });
    facebookLogin.authority.consentingUser = 'ada';
    instagramLogin.addUser('ada', {
      userId: bakery, appScopedId: '7000000000000001', username: 'ada.solo', name: 'Ada Solo',
      profilePictureUrl: picture('solo'),
    });
    instagramLogin.authority.consentingUser = 'ada';
    // The platforms send the user back to FRONTEND_URL and fetch media from UPLOADS_PUBLIC_URL: both are the api.
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      ...oauthSimulatorSettings('instagram', facebookLogin),
      ...oauthSimulatorSettings('instagram-standalone', instagramLogin),
      FRONTEND_URL: frontendUrl,
      UPLOADS_PUBLIC_URL: `${frontendUrl}/uploads`,
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: '1500',
      // A lost answer is noticed when the request times out.
      PLATFORM_TIMEOUT_MS: '2000',
    });
    stack = await startStack(ctx, { port });
    dashboard = new DashboardClient(stack.baseUrl);
    expect((await dashboard.signUp(newAccount('instagram'))).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    channels.set('instagram', await connect('instagram', books));
    channels.set('instagram-standalone', await connect('instagram-standalone', null));
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await Promise.all([facebookLogin.close(), instagramLogin.close()]);
    rmSync(media.dir, { recursive: true, force: true });
  });

  function connectedChannelId(answer: PageAnswer): string {
    const id = /^\/channels\?connected=([0-9a-f]{24})$/.exec(answer.location ?? '')?.[1];
    if (id === undefined) {
      throw new Error(`expected a redirect to the channels, got ${String(answer.status)}: ${answer.html}`);
    }
    return id;
  }

  /** `GET /social/:provider`, the consent page, the dashboard's callback, and its picker where there is one. */
  async function connect(provider: string, pick: string | null): Promise<string> {
    const started = await api(stack.baseUrl, apiKey, `${v1}/social/${provider}`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const consent = await fetch(z.object({ url: z.url() }).parse(started.body).url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    if (pick === null) return connectedChannelId(callback);
    const pickPath = callback.location ?? '';
    expect(pickPath).toMatch(new RegExp(`^/channels/pick/${provider}\\?key=`));
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    return connectedChannelId(await dashboard.post(`/channels/pick/${provider}`, { key, account: pick }));
  }

  async function upload(file: string, name: string): Promise<{ id: string; path: string }> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), name);
    const init = { method: 'POST', body: form, headers: { Authorization: apiKey } };
    const response = await fetch(`${stack.baseUrl}${v1}/upload`, init);
    expect(response.status).toBe(201);
    return uploadAnswer.parse(await response.json());
  }

  async function post(
    provider: string,
    parts: { content: string; image?: { id: string; path: string }[] }[],
    settings: Record<string, unknown> = {},
  ): Promise<{ status: number; postId: string; body: unknown }> {
    const response = await api(stack.baseUrl, apiKey, `${v1}/posts`, {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: channels.get(provider) }, settings, value: parts }] },
    });
    const postId = response.status === 201 ? (response.body as { postId: string }[])[0]?.postId ?? '' : '';
    return { status: response.status, postId, body: response.body };
  }

  const finishedJob = (postId: string) => finishedPublishJob(stack.publishQueue, postId);

  const variants: [string, () => InstagramContentSimulation, string][] = [
    ['instagram', () => facebookLogin.content, books],
    ['instagram-standalone', () => instagramLogin.content, bakery],
  ];

  describe.each(variants)('%s', (provider, contentOf, accountId) => {
    it('publishes an image Instagram fetched from UPLOADS_PUBLIC_URL, and the next part as a comment', async () => {
      const image = await upload(media.jpeg, 'square.jpg');
      const caption = `Fresh bread on ${provider}`;
      const created = await post(provider, [{ content: caption, image: [image] }, { content: 'Baked at dawn' }]);
      expect(created.status).toBe(201);
      const parts = await settledParts(ctx.db, created.postId);
      expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

      const content = contentOf();
      const [published] = content.mediaWithCaption(caption);
      expect(published).toMatchObject({ owner: accountId, mediaType: 'IMAGE', productType: 'FEED' });
      expect(parts[0]).toMatchObject({ releaseId: published?.id, releaseURL: published?.permalink });
      const container = content.containers.get(published?.containerId ?? '');
      expect(container?.fields.image_url).toMatch(new RegExp(`^${frontendUrl}/uploads/`));
      const size = readFileSync(media.jpeg).length;
      expect(container?.pulled).toMatchObject({ status: 200, contentType: 'image/jpeg', size });
      const [comment] = content.comments.filter((item) => item.mediaId === published?.id);
      expect(comment).toMatchObject({ id: parts[1]?.releaseId, text: 'Baked at dawn', from: { id: accountId } });
    });

    it('publishes a video as a Reel once Instagram has processed it', async () => {
      const video = await upload(media.mp4, 'reel.mp4');
      const caption = `Oven tour on ${provider}`;
      const created = await post(provider, [{ content: caption, image: [video] }], { share_to_feed: true });
      expect(created.status).toBe(201);
      const [root] = await settledParts(ctx.db, created.postId);
      expect(root?.state).toBe('PUBLISHED');

      const content = contentOf();
      const [reel] = content.mediaWithCaption(caption);
      expect(reel).toMatchObject({ id: root?.releaseId, productType: 'REELS' });
      expect(root?.releaseURL).toBe(reel?.permalink);
      const container = content.containers.get(reel?.containerId ?? '');
      expect(container?.fields).toMatchObject({ media_type: 'REELS', share_to_feed: 'true' });
      const size = readFileSync(media.mp4).length;
      expect(container?.pulled).toMatchObject({ status: 200, contentType: 'video/mp4', size });
    });

    it('refuses a PNG at POST /posts: Instagram publishes JPEG images only', async () => {
      const png = path.join(media.dir, 'square.png');
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', media.jpeg, png]);
      const image = await upload(png, 'square.png');
      const created = await post(provider, [{ content: 'A PNG', image: [image] }]);
      expect(created.status).toBe(400);
      expect(JSON.stringify(created.body)).toContain('Instagram publishes JPEG images only');
    });

    it('publishes once when media_publish was accepted and its answer lost', async () => {
      const content = contentOf();
      const image = await upload(media.jpeg, 'square.jpg');
      const caption = `Lost answer on ${provider}`;
      const lostBefore = content.lostResponses;
      content.failNext({ on: 'media_publish', loseResponse: true });
      const created = await post(provider, [{ content: caption, image: [image] }]);
      const [root] = await settledParts(ctx.db, created.postId);
      expect(root?.state).toBe('PUBLISHED');
      expect(content.lostResponses).toBe(lostBefore + 1);

      const published = content.mediaWithCaption(caption);
      expect(published).toHaveLength(1);
      expect(root?.releaseId).toBe(published[0]?.id);
      // The retry found the container PUBLISHED and asked for no second media_publish.
      const container = published[0]?.containerId ?? '';
      expect(content.publishRequests.filter((id) => id === container)).toHaveLength(1);
      expect(root?.checkpoint).toMatchObject({ container, media: published[0]?.id });
    });

    it('waits for Meta’s reset when throttled, without spending an attempt', async () => {
      const content = contentOf();
      const image = await upload(media.jpeg, 'square.jpg');
      const caption = `Throttled on ${provider}`;
      content.failNext({ on: 'media', answer: throttledAnswer(accountId, 1) });
      const created = await post(provider, [{ content: caption, image: [image] }]);
      const [root] = await settledParts(ctx.db, created.postId);
      expect(root?.state).toBe('PUBLISHED');
      expect(content.mediaWithCaption(caption)).toHaveLength(1);
      // A minute's reset capped at PUBLISH_MAX_RETRY_AFTER_MS; the delay is not a failed attempt.
      expect(await finishedJob(created.postId)).toMatchObject({
        state: 'completed', attemptsMade: 1, data: { rateLimitDelays: 1 },
      });
    });

    it('fails the post and flags the channel when Meta refuses the token with code 190', async () => {
      const content = contentOf();
      const image = await upload(media.jpeg, 'square.jpg');
      const caption = `Dead token on ${provider}`;
      content.failNext({ on: 'any', answer: expiredToken(Date.now()) });
      const created = await post(provider, [{ content: caption, image: [image] }]);
      const [root] = await settledParts(ctx.db, created.postId);
      expect(root?.state).toBe('ERROR');
      expect(root?.error).toMatch(/^Error validating access token: Session has expired on /);
      const channel = await ctx.db.channels.findOne({ _id: channels.get(provider) }).lean();
      expect(channel?.refreshNeeded).toBe(true);
      expect(content.mediaWithCaption(caption)).toHaveLength(0);
    });
  });
});

