import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { quotaExceeded } from '../simulators/google/youtube-answers.ts';
import { startYoutubeSimulator, type YoutubeSimulator } from '../simulators/google/youtube-simulator.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { api } from '../support/fixtures.ts';
import { publishNow, settledParts, uploadFile, type UploadedMedia } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { connectThroughConsent } from '../support/connect-through-consent.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const channelId = 'UCadafilms00000000000001';
const thumbnail = 'https://yt3.ggpht.com/a.jpg';
/** The cap on a platform's "wait": YouTube's quota waits for midnight Pacific time, the tests a second. */
const maxWaitMs = 1_000;

interface Org {
  apiKey: string;
  channelId: string;
}

/**
 * YouTube videos from POST /posts through the queue and the publish worker to the YouTube
 * simulator, on a channel connected through Google's consent the way a user connects it. Exactly
 * once rests on the resumable upload's session, checkpointed before the first byte: these tests
 * cut uploads and lose answers, then count the videos and the bytes the simulator took.
 */
describe('publishing to YouTube through the whole stack', () => {
  let sim: YoutubeSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let mp4: Buffer;
  let organizations = 0;

  beforeAll(async () => {
    media = makeSmallMedia();
    mp4 = readFileSync(media.mp4);
    sim = await startYoutubeSimulator({
      ada: {
        channels: [{ id: channelId, title: 'Ada Films', customUrl: '@adafilms', thumbnail }],
        businessAccounts: [],
      },
    });
    sim.authority.consentingUser = 'ada';
    ctx = await createTestContext({
      ...oauthSimulatorSettings('youtube', sim),
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxWaitMs),
      // A cut upload or a lost answer is noticed at once (the connection breaks); this bounds a stuck one.
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await sim.close();
    media.remove();
  });

  /** A new organization whose user connects Ada's channel through the public API and Google's consent. */
  async function organization(): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `YouTube org ${String(organizations)}` });
    const channelId = await connectThroughConsent(stack.baseUrl, org.apiKey, 'youtube');
    return { apiKey: org.apiKey, channelId };
  }

  /** Posts one video now with `title`; returns the post id. */
  async function postVideo(
    org: Org, title: string, extra: { media?: (UploadedMedia & { thumbnail?: string })[]; settings?: object } = {},
  ) {
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    return publishNow(stack.baseUrl, org, [{ content: `${title}, described`, image: extra.media ?? [video] }], {
      title, ...extra.settings,
    });
  }

  const titled = (title: string) => sim.store.videos.filter((video) => video.snippet.title === title);
  /** The requests to the upload session a part's checkpoint names. */
  async function sessionRequests(postId: string) {
    const part = await ctx.db.posts.findOne({ _id: postId }).lean();
    const checkpoint = z.object({ uploadSession: z.string(), videoId: z.string() }).parse(part?.checkpoint);
    const session = new URL(checkpoint.uploadSession).searchParams.get('upload_id');
    return { checkpoint, sent: sim.store.sessionRequests.filter((request) => request.sessionId === session) };
  }

  it('publishes the uploaded MP4 with its title, privacy and description, its thumbnail and playlist', async () => {
    const org = await organization();
    const playlist = sim.store.addPlaylist(channelId, 'Engines');
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const cover = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await postVideo(org, 'Analytical Engine', {
      media: [video, cover], settings: { privacyStatus: 'unlisted', playlistId: playlist.id, categoryId: '28' },
    });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);

    const made = titled('Analytical Engine');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      channelId,
      snippet: { description: 'Analytical Engine, described', categoryId: '28' },
      status: { privacyStatus: 'unlisted', uploadStatus: 'uploaded' },
    });
    expect(made[0]?.bytes.equals(mp4)).toBe(true);
    expect(made[0]?.thumbnail?.bytes.equals(readFileSync(media.png))).toBe(true);
    expect(playlist.items.map((item) => item.videoId)).toEqual([made[0]?.id]);
    expect(root?.releaseId).toBe(made[0]?.id);
    expect(root?.releaseURL).toBe(`https://www.youtube.com/watch?v=${made[0]?.id ?? ''}`);
  });

  it('sets the poster chosen for the video (image[].thumbnail) as its custom thumbnail', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const cover = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await postVideo(org, 'With a chosen poster', { media: [{ ...video, thumbnail: cover.path }] });
    const [root] = await settledParts(ctx.db, postId);
    expect([root?.state, root?.error ?? null]).toEqual(['PUBLISHED', null]);
    expect(root?.media).toEqual([{ ...video, alt: null, thumbnail: cover.path }]);

    const made = titled('With a chosen poster');
    expect(made).toHaveLength(1);
    expect(made[0]?.thumbnail?.mimeType).toBe('image/png');
    expect(made[0]?.thumbnail?.bytes.equals(readFileSync(media.png))).toBe(true);
  });

  it('keeps the video published, and says so, when the channel may not set custom thumbnails', async () => {
    const org = await organization();
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const cover = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    sim.store.noCustomThumbnails.add(channelId);
    try {
      const postId = await postVideo(org, 'Poster refused', { media: [{ ...video, thumbnail: cover.id }] });
      const [root] = await settledParts(ctx.db, postId);
      const made = titled('Poster refused');
      expect([root?.state, root?.error ?? null, root?.releaseId]).toEqual(['PUBLISHED', null, made[0]?.id]);
      expect(made).toHaveLength(1);
      expect(made[0]?.thumbnail).toBeNull();
      const told = await waitFor(async () => {
        const found = await ctx.db.notifications.findOne({ organizationId: root?.organizationId }).lean();
        return found ?? undefined;
      }, { what: 'the publication\'s notification' });
      expect(told.content).toBe(`Your post was published on YouTube at ${root?.releaseURL ?? ''}. Not all went as `
        + `asked: the video is on YouTube at ${root?.releaseURL ?? ''}, but its custom thumbnail was not set: `
        + 'YouTube: YouTube does not allow this for the channel (The authenticated user doesn’t have permissions '
        + 'for uploading and setting custom thumbnails for the current video.)');
    } finally {
      sim.store.noCustomThumbnails.delete(channelId);
    }
  });

  it('resumes an upload cut midway from the byte YouTube lacks: each byte arrives once, one video', async () => {
    const org = await organization();
    const half = Math.floor(mp4.length / 2);
    sim.store.cutNextChunkAfter = half;
    const postId = await postVideo(org, 'Cut midway');
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const made = titled('Cut midway');
    expect(made).toHaveLength(1);
    expect(made[0]?.bytes.equals(mp4)).toBe(true);
    const { checkpoint, sent } = await sessionRequests(postId);
    expect(checkpoint.videoId).toBe(made[0]?.id);
    const size = String(mp4.length);
    expect(sent.map((request) => [request.contentRange, request.outcome, request.kept])).toEqual([
      [`bytes 0-${String(mp4.length - 1)}/${size}`, 'cut', half],
      [`bytes */${size}`, 'incomplete', 0],
      [`bytes ${String(half)}-${String(mp4.length - 1)}/${size}`, 'complete', mp4.length - half],
    ]);
    expect(sent[2]?.bodyBytes).toBe(mp4.length - half);
    expect(sent.reduce((sum, request) => sum + request.kept, 0)).toBe(mp4.length);
  });

  it('makes one video when the answer to the last byte was lost: the retry reads it from the session', async () => {
    const org = await organization();
    sim.store.loseNextCompletion = true;
    const postId = await postVideo(org, 'Lost answer');
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const made = titled('Lost answer');
    expect(made).toHaveLength(1);
    expect(root?.releaseId).toBe(made[0]?.id);
    const { sent } = await sessionRequests(postId);
    expect(sent.map((request) => request.outcome)).toEqual(['lost', 'complete']);
    expect(sent[1]?.contentRange).toBe(`bytes */${String(mp4.length)}`);
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
  });

  it('waits for the quota\'s reset without spending an attempt', async () => {
    const org = await organization();
    sim.store.failNext('videos.insert', quotaExceeded);
    const opened = () => sim.received.filter((request) => request.path === '/upload/youtube/v3/videos'
      && request.text.includes('After the quota'));
    const postId = await postVideo(org, 'After the quota');
    const firstTry = await waitFor(() => (opened().length > 0 ? Date.now() : undefined), { what: 'the first try' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; the quota's wait is capped at a second here.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(maxWaitMs - 100);
    expect(opened()).toHaveLength(2);
    expect(titled('After the quota')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('refreshes the hour-old access token YouTube refuses, then publishes', async () => {
    const org = await organization();
    const refreshes = sim.authority.grants.refresh_token;
    sim.authority.now = () => Date.now() + 3_600_000;
    try {
      const postId = await postVideo(org, 'After a refresh');
      const [root] = await settledParts(ctx.db, postId);
      expect(root?.state).toBe('PUBLISHED');
    } finally {
      sim.authority.now = Date.now;
    }
    expect(sim.authority.grants.refresh_token).toBe(refreshes + 1);
    expect(titled('After a refresh')).toHaveLength(1);
  });

  it('fails the post with YouTube\'s words when it refuses the metadata, and refuses a second part', async () => {
    const org = await organization();
    const postId = await postVideo(org, 'Odd category', { settings: { categoryId: '999' } });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('YouTube: The snippet.categoryId property specifies an invalid category ID. Use the '
      + 'videoCategories.list method to retrieve supported categories.');
    expect(titled('Odd category')).toHaveLength(0);

    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const thread = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{
          integration: { id: org.channelId }, settings: { title: 'Two parts' },
          value: [{ content: 'one', image: [video] }, { content: 'two' }],
        }],
      },
    });
    expect(thread.status).toBe(400);
    expect(JSON.stringify(thread.body)).toContain('YouTube has no threads or comments: send one part only');
  });

  // Last: revoking voids every token the simulator issued.
  it('fails the post and flags the channel once Google refuses the token and its refresh', async () => {
    const org = await organization();
    sim.authority.revokeAll();
    const postId = await postVideo(org, 'After revoking');
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Token has been expired or revoked. (invalid_grant)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(titled('After revoking')).toHaveLength(0);
  });
});
