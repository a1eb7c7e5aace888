import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DashboardClient, newAccount } from '../browser/dashboard-client.ts';
import { resourceExhausted } from '../simulators/google/gmb-answers.ts';
import { startGmbSimulator, type GmbSimulator } from '../simulators/google/gmb-simulator.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const v1 = '/api/public/v1';
const postsPath = '/v4/accounts/100/locations/a2/localPosts';
/** The cap on a platform's "wait": Google's per-minute quota waits a minute, these tests a second. */
const maxWaitMs = 1_000;
const event = {
  title: 'Open day', startDate: '2030-05-01', startTime: '10:00', endDate: '2030-05-01', endTime: '16:00',
};

/** A 400x400 JPEG (about 20 KB: over Google's 10 KB minimum) and a one-second MP4, made with ffmpeg. */
function makeMedia(): { dir: string; jpeg: string; mp4: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-gmb-'));
  synthesizedMedia(['-f', 'lavfi', '-i', 'testsrc=size=400x400', '-frames:v', '1'], path.join(dir, 'shop.jpg'));
  synthesizedMedia([
    '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=30', '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p',
  ], path.join(dir, 'clip.mp4'));
  return { dir, jpeg: path.join(dir, 'shop.jpg'), mp4: path.join(dir, 'clip.mp4') };
}

/**
 * Google Business Profile local posts from POST /posts through the queue and the publish worker
 * to the Google simulator, on a location connected the way a user connects it: Google's consent,
 * the dashboard's callback and its location picker. Google fetches the photo from the stack's own
 * UPLOADS_PUBLIC_URL. Local posts take no idempotency key: these tests count the posts the
 * simulated location holds after answers were lost.
 */
describe('publishing to Google Business Profile through the whole stack', () => {
  let sim: GmbSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let org: { apiKey: string; channelId: string };
  const media = makeMedia();

  beforeAll(async () => {
    sim = await startGmbSimulator({
      owner: {
        channels: [],
        businessAccounts: [{
          name: 'accounts/100', accountName: 'Ada',
          locations: [{ name: 'locations/a1', title: 'Ada Bakery' }, { name: 'locations/a2', title: 'Ada Cafe' }],
        }],
      },
    });
    sim.authority.consentingUser = 'owner';
    // Google fetches photos from UPLOADS_PUBLIC_URL and sends users back to FRONTEND_URL: both are the api.
    const port = await freePort();
    const origin = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      ...oauthSimulatorSettings('gmb', sim),
      FRONTEND_URL: origin,
      UPLOADS_PUBLIC_URL: `${origin}/uploads`,
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxWaitMs),
      // A lost answer is noticed at once (the connection breaks); this bounds a stuck one.
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx, { port });

    const dashboard = new DashboardClient(stack.baseUrl);
    expect((await dashboard.signUp(newAccount('gmb'))).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    const apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    // Google's consent, the dashboard's callback, and Ada Cafe picked among the account's locations.
    const started = await api(stack.baseUrl, apiKey, `${v1}/social/gmb`);
    const consent = await fetch(z.object({ url: z.url() }).parse(started.body).url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    expect(callback.location ?? '').toMatch(/^\/channels\/pick\/gmb\?key=/);
    const picker = await dashboard.get(callback.location ?? '');
    expect(picker.html).toContain('Ada Bakery');
    expect(picker.html).toContain('Ada Cafe');
    const key = new URL(callback.location ?? '', origin).searchParams.get('key') ?? '';
    const picked = await dashboard.post('/channels/pick/gmb', { key, account: 'locations/a2' });
    const channelId = /^\/channels\?connected=([0-9a-f]{24})$/.exec(picked.location ?? '')?.[1] ?? '';
    expect(channelId).not.toBe('');
    org = { apiKey, channelId };
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await sim.close();
    rmSync(media.dir, { recursive: true, force: true });
  });

  const postsWith = (summary: string) => sim.store.posts.filter((post) => post.summary === summary);
  const creates = (summary: string) => sim.received.filter((request) => request.method === 'POST'
    && request.path === postsPath && request.text.includes(summary));

  it('publishes a STANDARD post with the photo Google fetched and a call to action', async () => {
    const photo = await uploadFile(stack.baseUrl, org.apiKey, media.jpeg);
    const callToAction = { actionType: 'LEARN_MORE', url: 'https://ada.example/menu' };
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Our **new** menu is here', image: [photo] }], {
      topicType: 'STANDARD', callToAction,
    });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [made] = postsWith('Our new menu is here');
    expect(made).toMatchObject({ parent: 'accounts/100/locations/a2', topicType: 'STANDARD', callToAction });
    expect(made?.media[0]?.sourceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/uploads\//);
    expect(made?.media[0]?.bytes.equals(readFileSync(media.jpeg))).toBe(true);
    expect(root?.releaseId).toBe(made?.name);
    expect(root?.releaseURL).toBe(made?.searchUrl);
  });

  it('publishes an EVENT and an OFFER with their dates and details', async () => {
    const offer = { couponCode: 'CAKE5', termsConditions: 'Weekdays only' };
    const offerSettings = { topicType: 'OFFER', event: { ...event, title: 'Cake week' }, offer };
    const [eventPost, offerPost] = await Promise.all([
      publishNow(stack.baseUrl, org, ['Bake with us'], { topicType: 'EVENT', event }),
      publishNow(stack.baseUrl, org, ['Five off any cake'], offerSettings),
    ]);
    const settled = await Promise.all([settledParts(ctx.db, eventPost), settledParts(ctx.db, offerPost)]);
    expect(settled.map(([root]) => root?.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    expect(postsWith('Bake with us')[0]).toMatchObject({
      topicType: 'EVENT',
      event: { title: 'Open day', schedule: { startDate: { year: 2030, month: 5, day: 1 }, endTime: { hours: 16 } } },
    });
    expect(postsWith('Five off any cake')[0]).toMatchObject({
      topicType: 'OFFER', offer, event: { title: 'Cake week' },
    });
    expect(postsWith('Five off any cake')[0]?.callToAction).toBeUndefined();
  });

  it('refuses a video and an OFFER without dates at POST /posts, sending nothing', async () => {
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const post = (image: { id: string; path: string }[], settings: Record<string, unknown>) =>
      api(stack.baseUrl, org.apiKey, `${v1}/posts`, {
        method: 'POST',
        body: {
          type: 'now', posts: [{ integration: { id: org.channelId }, settings, value: [{ content: 'No', image }] }],
        },
      });
    const withVideo = await post([video], { topicType: 'STANDARD' });
    const undated = await post([], { topicType: 'OFFER', offer: { couponCode: 'X' } });

    expect(withVideo.status).toBe(400);
    expect(JSON.stringify(withVideo.body)).toContain('Google Business Profile posts take no video');
    expect(undated.status).toBe(400);
    expect(undated.body).toMatchObject({
      details: [{
        path: 'posts.0.settings.event', message: expect.stringContaining('OFFER post needs event') as unknown,
      }],
    });
    expect(creates('"No"')).toHaveLength(0);
  });

  it('makes one post when Google\'s answer to the create was lost: the retry finds it', async () => {
    sim.store.failNext('localPosts.create', { lose: true });
    const postId = await publishNow(stack.baseUrl, org, ['Lost answer'], { topicType: 'STANDARD' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const made = postsWith('Lost answer');
    expect(made).toHaveLength(1);
    expect(root?.releaseId).toBe(made[0]?.name);
    expect(creates('Lost answer')).toHaveLength(1);
    expect(root?.checkpoint).toMatchObject({ sentAt: expect.any(String) as unknown });
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
  });

  it('waits for the quota (RESOURCE_EXHAUSTED) without spending an attempt', async () => {
    sim.store.failNext('localPosts.create', resourceExhausted());
    const postId = await publishNow(stack.baseUrl, org, ['After the quota'], { topicType: 'STANDARD' });
    const firstTry = await waitFor(() => (creates('After the quota').length > 0 ? Date.now() : undefined), {
      what: 'the first try',
    });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; Google's minute is capped at a second here.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(maxWaitMs - 100);
    expect(creates('After the quota')).toHaveLength(2);
    expect(postsWith('After the quota')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('refreshes the hour-old access token Google refuses, then publishes', async () => {
    const refreshes = sim.authority.grants.refresh_token;
    sim.authority.now = () => Date.now() + 3_600_000;
    try {
      const postId = await publishNow(stack.baseUrl, org, ['After a refresh'], { topicType: 'STANDARD' });
      const [root] = await settledParts(ctx.db, postId);
      expect(root?.state).toBe('PUBLISHED');
    } finally {
      sim.authority.now = Date.now;
    }
    expect(sim.authority.grants.refresh_token).toBe(refreshes + 1);
    expect(postsWith('After a refresh')).toHaveLength(1);
  });

  // Last: the channel is flagged for reconnecting.
  it('fails the post with Google\'s refusal and flags the channel once the account no longer manages it', async () => {
    const ada = sim.users.get('owner')?.businessAccounts[0];
    ada?.locations.splice(1);
    const postId = await publishNow(stack.baseUrl, org, ['Not ours any more'], { topicType: 'STANDARD' });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Google Business Profile: the connected Google account no longer manages this Business '
      + 'Profile location: connect it again (The caller does not have permission (PERMISSION_DENIED))');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsWith('Not ours any more')).toHaveLength(0);
  });
});
