import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { refusals } from '../simulators/tiktok/tiktok-answers.ts';
import type { RunningTikTokSimulator } from '../simulators/tiktok/tiktok-simulator.ts';
import { startTikTokWithCreators } from '../simulators/tiktok/tiktok-test-accounts.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { freePort } from '../support/free-port.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { publishNow, settledParts, uploadFile, type UploadedMedia } from '../support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { connectThroughConsent } from '../support/connect-through-consent.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const videoInit = 'POST /v2/post/publish/video/init/';

/** A JPEG and a one-second 360x640 H.264 MP4, made here with ffmpeg: TikTok takes both. */
function makeMedia(): { dir: string; jpeg: string; mp4: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-tiktok-'));
  synthesizedMedia(['-f', 'lavfi', '-i', 'testsrc=size=640x640', '-frames:v', '1'], path.join(dir, 'square.jpg'));
  synthesizedMedia([
    '-f', 'lavfi', '-i', 'testsrc=size=360x640:rate=30', '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p',
  ], path.join(dir, 'clip.mp4'));
  return { dir, jpeg: path.join(dir, 'square.jpg'), mp4: path.join(dir, 'clip.mp4') };
}

interface Org {
  apiKey: string;
  channelId: string;
}

/**
 * Publishing to TikTok from POST /posts through the queue and the publish worker to the TikTok
 * simulator, on channels connected the way an API client's user connects them (`GET
 * /social/tiktok`, TikTok's consent page, the callback). Videos are uploaded in chunks; photos
 * are pulled by the simulator from the stack's own UPLOADS_PUBLIC_URL, as TikTok pulls them.
 * TikTok has no idempotency key: these tests count what the simulator holds after answers were
 * lost, to show the checkpointed publish_id at work.
 */
describe('publishing to TikTok through the whole stack', () => {
  let sim: RunningTikTokSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;
  const media = makeMedia();

  beforeAll(async () => {
    sim = await startTikTokWithCreators();
    // TikTok fetches photos from UPLOADS_PUBLIC_URL and sends users back to FRONTEND_URL: both are the api.
    const port = await freePort();
    const origin = `http://127.0.0.1:${String(port)}`;
    sim.app.verifiedUrlPrefixes = [`${origin}/uploads/`];
    ctx = await createTestContext({
      ...oauthSimulatorSettings('tiktok', sim),
      FRONTEND_URL: origin,
      UPLOADS_PUBLIC_URL: `${origin}/uploads`,
      PUBLISH_ATTEMPTS: '4',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: '1500',
      // A lost answer is noticed at once (the connection breaks); this bounds a stuck one.
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx, { port });
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await sim.close();
    rmSync(media.dir, { recursive: true, force: true });
  });

  /** A new organization whose user connects a TikTok account through the public API and TikTok's consent. */
  async function organization(user = 'ada'): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `TikTok org ${String(organizations)}` });
    sim.authority.consentingUser = user;
    const channelId = await connectThroughConsent(stack.baseUrl, org.apiKey, 'tiktok');
    return { apiKey: org.apiKey, channelId };
  }

  async function post(org: Org, content: string, image: UploadedMedia[], settings: Record<string, unknown>) {
    const postId = await publishNow(stack.baseUrl, org, [{ content, image }], settings);
    return { postId, parts: await settledParts(ctx.db, postId) };
  }

  const postsWith = (title: string) => sim.publishing.posts().filter((item) => item.title === title);
  const initsWith = (caption: string) => sim.requestsTo(videoInit).filter((request) => request.text.includes(caption));

  it('publishes a video posted to POST /posts: creator_info, init, chunk PUTs, status, the public post', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const { parts: [root] } = await post(org, 'Our first TikTok #sps', [video], {
      privacy_level: 'PUBLIC_TO_EVERYONE', disable_stitch: true,
    });

    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);
    const [made] = postsWith('Our first TikTok #sps');
    expect(made?.video?.equals(readFileSync(media.mp4))).toBe(true);
    expect(made?.postInfo).toMatchObject({ privacy_level: 'PUBLIC_TO_EVERYONE', disable_stitch: true });
    expect(root?.releaseId).toBe(made?.id);
    expect(root?.releaseURL).toBe(`https://www.tiktok.com/@ada.films/video/${made?.id ?? ''}`);
    expect(root?.checkpoint).toMatchObject({ publishId: made?.publishId });
  });

  it('publishes photos TikTok pulls from the stack\'s public media address', async () => {
    const org = await organization();
    const photo = await uploadFile(stack.baseUrl, org.apiKey, media.jpeg);
    const { parts: [root] } = await post(org, 'Pulled by TikTok', [photo], {
      privacy_level: 'PUBLIC_TO_EVERYONE', title: 'A square',
    });

    expect(root?.state).toBe('PUBLISHED');
    const made = sim.publishing.posts().find((item) => item.description === 'Pulled by TikTok');
    expect(made).toMatchObject({ media: 'photo', title: 'A square' });
    expect(made?.photos[0]?.equals(readFileSync(media.jpeg))).toBe(true);
    expect(root?.releaseURL).toBe(`https://www.tiktok.com/@ada.films/photo/${made?.id ?? ''}`);
  });

  it('uploads to the creator\'s inbox with post_mode MEDIA_UPLOAD', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const inboxInits = sim.requestsTo('POST /v2/post/publish/inbox/video/init/').length;
    const { parts: [root] } = await post(org, 'Finish it in the app', [video], {
      privacy_level: 'SELF_ONLY', post_mode: 'MEDIA_UPLOAD',
    });

    expect(root?.state).toBe('PUBLISHED');
    expect(sim.requestsTo('POST /v2/post/publish/inbox/video/init/')).toHaveLength(inboxInits + 1);
    const shared = sim.publishing.inbox().at(-1);
    expect(root?.releaseId).toBe(shared?.publishId);
    expect(root?.releaseURL).toBe('https://www.tiktok.com/@ada.films');
  });

  it('posts once when the answer to the init was lost: the orphan publish never gets its bytes', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const lost = sim.lostAnswers;
    sim.failNext(videoInit, { lose: true });
    const { parts: [root] } = await post(org, 'Init answer lost', [video], { privacy_level: 'PUBLIC_TO_EVERYONE' });

    expect(root?.state).toBe('PUBLISHED');
    expect(sim.lostAnswers).toBe(lost + 1);
    expect(initsWith('Init answer lost')).toHaveLength(2);
    expect(postsWith('Init answer lost').map((item) => item.id)).toEqual([root?.releaseId]);
  });

  it('posts once when the attempt broke off after the publish_id was stored: the retry polls it', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    // TikTok takes the only chunk and the connection breaks before its answer: the attempt fails.
    sim.failNext('PUT /video/', { lose: true });
    const { postId, parts: [root] } = await post(org, 'Upload answer lost', [video], {
      privacy_level: 'PUBLIC_TO_EVERYONE',
    });

    expect(root?.state).toBe('PUBLISHED');
    expect(initsWith('Upload answer lost')).toHaveLength(1);
    expect(postsWith('Upload answer lost').map((item) => item.id)).toEqual([root?.releaseId]);
    // The first attempt failed after storing the publish_id; the second only read its status.
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
    const publish = sim.publishing.publishes.get(postsWith('Upload answer lost')[0]?.publishId ?? '');
    const uploadId = publish?.upload?.uploadId;
    const puts = sim.requestsTo('PUT /video/').filter((request) => request.query.get('upload_id') === uploadId);
    expect(puts).toHaveLength(1);
  });

  it('waits out TikTok\'s rate_limit_exceeded without spending an attempt', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    sim.failNext(videoInit, refusals.rateLimited());
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'After the minute', image: [video] }], {
      privacy_level: 'PUBLIC_TO_EVERYONE',
    });
    const firstTry = await waitFor(() => (initsWith('After the minute').length > 0 ? Date.now() : undefined), {
      what: 'the first init',
    });
    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('PUBLISHED');
    // TikTok sends no reset: SPS waits a minute, capped here at PUBLISH_MAX_RETRY_AFTER_MS; backoff would be 20 ms.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(1_400);
    expect(initsWith('After the minute')).toHaveLength(2);
    expect(postsWith('After the minute')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails a post whose privacy level the creator does not offer, before any init', async () => {
    const org = await organization('bea');
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const { parts: [root] } = await post(org, 'Too public for Bea', [video], { privacy_level: 'PUBLIC_TO_EVERYONE' });

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('TikTok: privacy_level PUBLIC_TO_EVERYONE is not one this account offers '
      + '(MUTUAL_FOLLOW_FRIENDS, SELF_ONLY); choose one of them (see the creatorInfo tool)');
    expect(initsWith('Too public for Bea')).toHaveLength(0);
  });

  it('fails with TikTok\'s own message when TikTok refuses the post (an unaudited app posting publicly)', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    sim.app.unaudited = true;
    try {
      const { parts: [root] } = await post(org, 'Unaudited app', [video], { privacy_level: 'PUBLIC_TO_EVERYONE' });
      expect(root?.state).toBe('ERROR');
      expect(root?.error).toBe('Unaudited clients can only post to private accounts: use privacy_level SELF_ONLY. '
        + '(unaudited_client_can_only_post_to_private_accounts); until TikTok audits this app, posts must use '
        + 'privacy_level SELF_ONLY');
      expect(postsWith('Unaudited app')).toHaveLength(0);
    } finally {
      sim.app.unaudited = false;
    }
  });

  // Last: revoking voids every token the simulator issued.
  it('fails the post and flags the channel once TikTok refuses the token and its refresh', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    sim.authority.revokeAll();
    const { parts: [root] } = await post(org, 'After revoking', [video], { privacy_level: 'PUBLIC_TO_EVERYONE' });

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('The refresh token is invalid or was revoked (invalid_grant)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsWith('After revoking')).toHaveLength(0);
  });
});
