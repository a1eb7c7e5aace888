import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { ada, addTestSubreddits } from '../simulators/reddit/reddit-channel.ts';
import { startRedditSimulator, type RedditSimulator } from '../simulators/reddit/reddit-simulator.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { publishNow, settledParts, uploadFile, type ThreadPart } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { connectThroughConsent } from '../support/connect-through-consent.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

interface Org {
  apiKey: string;
  channelId: string;
}

/** What the platform's "take a break" is cut to here: Reddit asks for seconds to minutes. */
const maxWaitMs = 3_000;

/**
 * Reddit submissions from POST /posts through the queue and the publish worker to the Reddit
 * simulator, on a channel connected the way a user connects it: `GET /social/reddit`, Reddit's
 * consent page, the callback. Reddit has no idempotency key: these tests count what the
 * simulator holds after an answer was lost.
 */
describe('publishing to Reddit through the whole stack', () => {
  let sim: RedditSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let organizations = 0;

  beforeAll(async () => {
    media = makeSmallMedia();
    sim = await startRedditSimulator();
    sim.addUser(ada);
    sim.authority.consentingUser = ada.id;
    addTestSubreddits(sim);
    ctx = await createTestContext({
      ...oauthSimulatorSettings('reddit', sim),
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: String(maxWaitMs),
      // A lost answer is noticed at once (the connection breaks); this bounds a stuck one.
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

  /** A new organization whose user connects Ada's Reddit account through the public API and Reddit's consent. */
  async function organization(): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Reddit org ${String(organizations)}` });
    const channelId = await connectThroughConsent(stack.baseUrl, org.apiKey, 'reddit');
    return { apiKey: org.apiKey, channelId };
  }

  const publish = (org: Org, parts: ThreadPart[], settings: Record<string, unknown>) =>
    publishNow(stack.baseUrl, org, parts, settings);
  const postsTitled = (title: string) => sim.records.posts.filter((post) => post.title === title);
  const submitsTitled = (title: string) => sim.requestsTo('POST /api/submit')
    .filter((request) => new URLSearchParams(request.text).get('title') === title);

  it('publishes a self post with flair and its later parts as a chain of comments', async () => {
    const org = await organization();
    const settings = { subreddit: 'typescript', title: 'Typed errors, a thread', type: 'self', flair_id: 'f-help' };
    const postId = await publish(org, ['Part one, the self text.', 'Part two.', 'Part three.'], settings);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => [part.state, part.error ?? null])).toEqual([
      ['PUBLISHED', null], ['PUBLISHED', null], ['PUBLISHED', null],
    ]);

    const [post] = postsTitled('Typed errors, a thread');
    expect(post).toMatchObject({
      kind: 'self', text: 'Part one, the self text.', flairId: 'f-help', author: ada.name,
    });
    const comments = sim.records.comments.filter((item) => item.link === post?.name);
    expect(comments.map((item) => item.text)).toEqual(['Part two.', 'Part three.']);
    expect(comments.map((item) => item.parent)).toEqual([post?.name, comments[0]?.name]);
    expect(parts.map((part) => part.releaseId)).toEqual([post?.name, ...comments.map((item) => item.name)]);
    const permalink = `/r/typescript/comments/${post?.id ?? ''}/typed_errors_a_thread/`;
    expect(parts[0]?.releaseURL).toBe(`https://www.reddit.com${permalink}`);
  });

  it('publishes an image through the upload lease, and a video with its poster frame', async () => {
    const org = await organization();
    const png = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const settings = { subreddit: 'pics', title: 'A test card', type: 'image', flair_id: 'f-oc' };
    const imagePost = await publish(org, [{ content: 'Made with ffmpeg', image: [png] }], settings);
    const [imagePart] = await settledParts(ctx.db, imagePost);
    expect(imagePart?.state).toBe('PUBLISHED');
    const [image] = postsTitled('A test card');
    const stored = sim.uploads.assetAt(image?.url ?? '');
    expect(stored).toMatchObject({ fileName: 'image.png', mimeType: 'image/png' });
    expect(stored?.bytes?.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(imagePart?.releaseId).toBe(image?.name);
    const checkpoint = z.record(z.string(), z.string()).parse(imagePart?.checkpoint);
    expect(checkpoint.media0Url).toBe(image?.url);

    const mp4 = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const videoSettings = { subreddit: 'typescript', title: 'A one-second clip', type: 'video' };
    const videoPost = await publish(org, [{ content: '', image: [mp4] }], videoSettings);
    const [videoPart] = await settledParts(ctx.db, videoPost);
    expect(videoPart?.state).toBe('PUBLISHED');
    const [clip] = postsTitled('A one-second clip');
    expect(sim.uploads.assetAt(clip?.url ?? '')).toMatchObject({ fileName: 'clip.mp4', mimeType: 'video/mp4' });
    const poster = sim.uploads.assetAt(clip?.posterUrl ?? '');
    expect(poster).toMatchObject({ fileName: 'clip-poster.jpg', mimeType: 'image/jpeg' });
    // The media worker's frame: a JPEG, whatever its size.
    expect(poster?.bytes?.subarray(0, 2).toString('hex')).toBe('ffd8');
  });

  it('posts once when Reddit made the post and its answer was lost: the retry finds it', async () => {
    const org = await organization();
    sim.failNext('POST /api/submit', 'lose');
    const lost = sim.lostResponses;
    const settings = { subreddit: 'typescript', title: 'Answer lost on the way', type: 'self' };
    const postId = await publish(org, ['Only once, please.', 'And a comment.'], settings);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(sim.lostResponses).toBe(lost + 1);

    const made = postsTitled('Answer lost on the way');
    expect(made).toHaveLength(1);
    expect(submitsTitled('Answer lost on the way')).toHaveLength(1);
    expect(parts[0]?.releaseId).toBe(made[0]?.name);
    expect(sim.records.comments.filter((item) => item.parent === made[0]?.name).map((item) => item.text))
      .toEqual(['And a comment.']);
    // The broken connection failed the first attempt; the second found the post.
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
  });

  it('waits out Reddit\'s RATELIMIT without spending an attempt', async () => {
    const org = await organization();
    sim.submissions.throttled.push(1);
    const settings = { subreddit: 'typescript', title: 'After a break', type: 'self' };
    const postId = await publish(org, ['Posted once the break is over.'], settings);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const sent = submitsTitled('After a break');
    expect(sent).toHaveLength(2);
    // RATELIMIT asked for 1.59 s; backoff alone would have tried again after 20 ms.
    expect((sent[1]?.receivedAt ?? 0) - (sent[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1_500);
    expect(postsTitled('After a break')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post with Reddit\'s words when the subreddit requires flair', async () => {
    const org = await organization();
    const settings = { subreddit: 'pics', title: 'No flair given', type: 'link', url: 'https://example.com/pic' };
    const postId = await publish(org, ['A link without flair'], settings);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe(
      'Reddit refused the link post: Your post must contain post flair. (SUBMIT_VALIDATION_FLAIR_REQUIRED, flair)',
    );
    expect(submitsTitled('No flair given')).toHaveLength(1);
    expect(postsTitled('No flair given')).toHaveLength(0);
  });

  // Last: revoking voids every token the simulator issued.
  it('fails the post and flags the channel once Reddit refuses the token and its refresh', async () => {
    const org = await organization();
    sim.authority.revokeAll();
    const postId = await publish(org, ['After revoking'], { subreddit: 'typescript', title: 'Revoked', type: 'self' });
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(postsTitled('Revoked')).toHaveLength(0);
    const refreshes = sim.received.filter((request) => request.path === '/api/v1/access_token'
      && new URLSearchParams(request.text).get('grant_type') === 'refresh_token');
    expect(refreshes.length).toBeGreaterThan(0);
  });
});
