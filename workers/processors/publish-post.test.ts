import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobId } from '../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../test/simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../../test/support/fixtures.ts';
import { publishNow, settledParts, uploadFile } from '../../test/support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { makeTestMedia } from '../../test/support/test-media.ts';
import { finishedPublishJob } from '../../test/support/finished-job.ts';

const media = makeTestMedia();

describe('publish worker against the Mastodon simulator', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const simulator = new MastodonSimulator();
  let token: string;
  let org: { apiKey: string; organizationId: string; channelId: string };

  beforeAll(async () => {
    await simulator.start();
    token = simulator.addAccount('sps');
    ctx = await createTestContext({
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      // Small enough for the rate-limit tests to see the caps at work.
      PUBLISH_MAX_RATE_LIMIT_DELAYS: '2',
      PUBLISH_MAX_RETRY_AFTER_MS: '1500',
    });
    stack = await startStack(ctx);
    org = await organizationWithMastodon(ctx, simulator.origin, token);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
    rmSync(media.dir, { recursive: true, force: true });
  });

  async function createPost(value: { content: string; delay?: number }[], settings?: Record<string, unknown>): Promise<string> {
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value, ...(settings === undefined ? {} : { settings }) }] },
    });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }

  /** The whole thread is done: every part published, or the post failed. */
  const settled = (postId: string) => waitFor(async () => {
    const parts = await ctx.db.posts.find({ $or: [{ _id: postId }, { rootPostId: postId }] }).lean();
    const done = parts.every((part) => part.state === 'PUBLISHED') || parts.some((part) => part.state === 'ERROR');
    return done ? parts.find((part) => part.position === 0) : undefined;
  }, { what: `post ${postId} to settle` });

  const notificationsMentioning = async (text: string) => (await ctx.db.notifications.find({ content: { $regex: text } }).lean());

  const finishedJob = (postId: string) => finishedPublishJob(stack.publishQueue, postId);
  const statusRequests = (text: string) =>
    simulator.statusesCreatedRequests()
      .filter((request) => (request.body as { status?: string } | null)?.status === text);
  /** A 429 as Mastodon sends it: the time its window reopens, not Retry-After. */
  const throttled = (resetAt: Date) => ({
    status: 429,
    body: { error: 'Too many requests' },
    headers: { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': resetAt.toISOString() },
  });

  it('publishes a thread in order, each part replying to the previous, and records release ids, URLs and a notification', async () => {
    const postId = await createPost([{ content: 'Thread A 1/3' }, { content: 'Thread A 2/3' }, { content: 'Thread A 3/3' }], { visibility: 'unlisted' });
    const root = await settled(postId);
    expect(root.state).toBe('PUBLISHED');

    const parts = await ctx.db.posts.find({ $or: [{ _id: postId }, { rootPostId: postId }] }).sort({ position: 1 }).lean();
    const statuses = parts.map((part) => simulator.statuses.find((status) => status.id === part.releaseId));
    expect(statuses.map((status) => status?.text)).toEqual(['Thread A 1/3', 'Thread A 2/3', 'Thread A 3/3']);
    expect(statuses.map((status) => status?.in_reply_to_id)).toEqual([null, statuses[0]?.id, statuses[1]?.id]);
    expect(statuses.every((status) => status?.visibility === 'unlisted')).toBe(true);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    expect(root.releaseURL).toBe(statuses[0]?.url);

    // Told after the parts are saved: waited for, not read at once.
    const notification = await waitFor(
      async () => (await notificationsMentioning(String(statuses[0]?.id)))[0],
      { what: 'the notification' },
    );
    expect(notification.content).toBe(`Your post was published on Mastodon at ${statuses[0]?.url ?? ''}`);
    expect(notification.link).toBe(statuses[0]?.url);
  });

  it('retries a 503 with backoff and publishes once the platform recovers', async () => {
    simulator.failNext({ status: 503, body: { error: 'Service Unavailable' } }, { status: 429, body: { error: 'Too many requests' } });
    const postId = await createPost([{ content: 'Survives a bad minute' }]);
    const root = await settled(postId);
    expect(root.state).toBe('PUBLISHED');
    expect(simulator.statuses.filter((status) => status.text === 'Survives a bad minute')).toHaveLength(1);
    const attempts = simulator.statusesCreatedRequests().filter((request) => (request.body as { status: string }).status === 'Survives a bad minute');
    // Two failed attempts and the one that worked, counted where they land: at the platform.
    // (Not BullMQ's attemptsMade: under a full-suite load it once read 2 for these same three
    // requests, and what a retry costs the platform is the requests.)
    expect(attempts).toHaveLength(3);
    expect(await finishedJob(postId)).toMatchObject({ state: 'completed' });
  });

  it('fails a rejected body at once, without retrying, and tells the organization why', async () => {
    // SPS checks the default limit itself; an instance with stricter rules still answers 422.
    simulator.failNext({ status: 422, body: { error: 'Validation failed: Text contains a forbidden word' } });
    const requestsBefore = simulator.statusesCreatedRequests().length;
    const postId = await createPost([{ content: 'Something the instance refuses' }]);
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toBe('Validation failed: Text contains a forbidden word');
    expect(simulator.statusesCreatedRequests().length - requestsBefore).toBe(1);
    expect(await finishedJob(postId)).toMatchObject({ state: 'failed', attemptsMade: 1 });
    const [notification] = await notificationsMentioning('forbidden word');
    expect(notification?.content).toBe('Your post could not be published on Mastodon (the platform refused the post): '
      + 'Validation failed: Text contains a forbidden word');
  });

  it('fails after the last attempt when the platform stays down', async () => {
    simulator.failNext(...Array.from({ length: 3 }, () => ({ status: 502, body: { error: 'Bad Gateway' } })));
    const postId = await createPost([{ content: 'Never makes it' }]);
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toBe('Bad Gateway');
    expect(simulator.statuses.some((status) => status.text === 'Never makes it')).toBe(false);
    expect(statusRequests('Never makes it')).toHaveLength(3);
    expect(await finishedJob(postId)).toMatchObject({ state: 'failed', attemptsMade: 3 });
  });

  it('fails at once, in one attempt, a stored post that cannot be sent (settings that no longer parse)', async () => {
    // A draft is stored without the platform's checks; one that reaches the queue anyway (stored
    // before a rule changed) fails the same way on every attempt, so it must not be retried.
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'draft',
        posts: [{
          integration: { id: org.channelId },
          value: [{ content: 'Invisible' }],
          settings: { visibility: 'all' },
        }],
      },
    });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    await ctx.db.posts.updateOne({ _id: postId }, { $set: { state: 'QUEUE', publishDate: new Date() } });
    const payload = { organizationId: org.organizationId, postId };
    await stack.publishQueue.add('publish-post', payload, { jobId: publishJobId(postId) });
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toMatch(/visibility/);
    expect(await finishedJob(postId)).toMatchObject({ state: 'failed', attemptsMade: 1 });
    expect(statusRequests('Invisible')).toHaveLength(0);
    const failures = await notificationsMentioning('could not be published');
    expect(failures.some((notification) => notification.content.includes('visibility'))).toBe(true);
  });

  it('waits for the platform\'s rate-limit reset instead of backing off, without spending an attempt', async () => {
    simulator.failNext(throttled(new Date(Date.now() + 1_200)));
    const postId = await createPost([{ content: 'After the window reopens' }]);
    const tried = () => (statusRequests('After the window reopens').length > 0 ? Date.now() : undefined);
    const firstTry = await waitFor(tried, { what: 'the first try' });
    const root = await settled(postId);
    const publishedAt = Date.now();
    expect(root.state).toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; the reset is about 1.2 s away (the adapter waits at least 1 s).
    expect(publishedAt - firstTry).toBeGreaterThanOrEqual(900);
    expect(statusRequests('After the window reopens')).toHaveLength(2);
    expect(simulator.statuses.filter((status) => status.text === 'After the window reopens')).toHaveLength(1);
    // The delay is not a failed attempt: only the attempt that published counts.
    const job = await finishedJob(postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 1, data: { rateLimitDelays: 1 } });
  });

  it('caps a far-off reset at PUBLISH_MAX_RETRY_AFTER_MS', async () => {
    simulator.failNext(throttled(new Date(Date.now() + 2 * 3_600_000)));
    const postId = await createPost([{ content: 'Not two hours later' }]);
    const root = await settled(postId);
    expect(root.state).toBe('PUBLISHED');
    const job = await finishedJob(postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 1, data: { rateLimitDelays: 1 } });
  });

  it('stops delaying after PUBLISH_MAX_RATE_LIMIT_DELAYS: more 429s spend attempts, then the post fails', async () => {
    simulator.failNext(...Array.from({ length: 5 }, () => throttled(new Date(Date.now() - 1_000))));
    const postId = await createPost([{ content: 'Throttled for ever' }]);
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toBe('Too many requests');
    // Two delays (the cap), then the three attempts.
    expect(statusRequests('Throttled for ever')).toHaveLength(5);
    expect(await finishedJob(postId)).toMatchObject({ state: 'failed', attemptsMade: 3, data: { rateLimitDelays: 2 } });
  });

  it('resumes a thread after the last published part instead of publishing it again', async () => {
    // Part 1 is accepted, part 2 hits a 503: the retry must send only part 2.
    simulator.failNext('pass', { status: 503, body: { error: 'Service Unavailable' } });
    const postId = await createPost([{ content: 'Resume 1/2' }, { content: 'Resume 2/2' }]);
    const root = await settled(postId);
    expect(root.state).toBe('PUBLISHED');
    const sent = (text: string) => simulator.statusesCreatedRequests().filter((request) => (request.body as { status?: string }).status === text).length;
    expect(sent('Resume 1/2')).toBe(1);
    expect(sent('Resume 2/2')).toBe(2);
    const statuses = simulator.statuses.filter((status) => status.text.startsWith('Resume'));
    expect(statuses.map((status) => status.text)).toEqual(['Resume 1/2', 'Resume 2/2']);
    expect(statuses[1]?.in_reply_to_id).toBe(statuses[0]?.id);
  });

  it('waits for a thread part\'s delay by moving the job back to delayed', async () => {
    const postId = await createPost([{ content: 'Delayed 1/2' }, { content: 'Delayed 2/2', delay: 10 }]);
    // Delayed for part 2's ten minutes: on a loaded machine an attempt can time out first and be
    // delayed by the retry's backoff (milliseconds), which is not what this test is about.
    const job = await waitFor(async () => {
      const candidate = await stack.publishQueue.getJob(publishJobId(postId));
      if (candidate === undefined || candidate.delay < 60_000) return undefined;
      return (await candidate.getState()) === 'delayed' ? candidate : undefined;
    }, { what: 'the job to wait for part 2' });
    expect(simulator.statuses.some((status) => status.text === 'Delayed 1/2')).toBe(true);
    expect(simulator.statuses.some((status) => status.text === 'Delayed 2/2')).toBe(false);
    const rootPublishedAt = (await ctx.db.posts.findById(postId).lean())?.publishedAt?.getTime() ?? 0;
    expect(Math.abs((job.timestamp + (job.delay)) - (rootPublishedAt + 10 * 60_000))).toBeLessThan(2_000);
    await stack.publishQueue.remove(publishJobId(postId));
  });

  it('publishes a post\'s uploaded image with it, never without it', async () => {
    const png = readFileSync(media.png);
    const form = new FormData();
    form.append('file', new Blob([png]), 'square.png');
    const uploaded = await (await fetch(`${stack.baseUrl}/api/public/v1/upload`, { method: 'POST', body: form, headers: { Authorization: org.apiKey } })).json() as { id: string; path: string };
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: 'With a picture', image: [{ id: uploaded.id, path: uploaded.path, alt: 'Test card' }] }] }] },
    });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    expect((await settled(postId)).state).toBe('PUBLISHED');
    const status = simulator.statuses.find((candidate) => candidate.text === 'With a picture');
    const attached = simulator.media.find((item) => item.id === status?.mediaIds[0]);
    expect(attached?.description).toBe('Test card');
    expect(attached?.bytes.equals(png)).toBe(true);

    // Media gone from the library by publishing time: the post fails rather than going out bare.
    const gone = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'schedule', date: new Date(Date.now() + 3_600_000).toISOString(), posts: [{ integration: { id: org.channelId }, value: [{ content: 'Lost picture', image: [{ id: uploaded.id, path: uploaded.path }] }] }] },
    });
    const goneId = (gone.body as { postId: string }[])[0]?.postId ?? '';
    await ctx.db.media.deleteOne({ _id: uploaded.id });
    // Its time comes: the post is due (the worker checks the post's date, not only the job's).
    await ctx.db.posts.updateOne({ _id: goneId }, { $set: { publishDate: new Date() } });
    await stack.publishQueue.getJob(publishJobId(goneId)).then((job) => job?.changeDelay(0));
    const failed = await settled(goneId);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toMatch(/no longer in the library/);
    expect(simulator.statuses.some((candidate) => candidate.text === 'Lost picture')).toBe(false);
  });

  it('publishes a thread with an image on the first status and a video on the reply', async () => {
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Media thread 1/2', image: [image] },
      { content: 'Media thread 2/2', image: [video] },
    ]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const [first, second] = ['Media thread 1/2', 'Media thread 2/2']
      .map((text) => simulator.statuses.find((status) => status.text === text));
    expect(second?.in_reply_to_id).toBe(first?.id);
    const attached = (status: typeof first) => simulator.media.find((item) => item.id === status?.mediaIds[0]);
    expect([attached(first)?.type, attached(second)?.type]).toEqual(['image', 'video']);
    const videoBytes = attached(second)?.bytes;
    expect(videoBytes?.equals(readFileSync(media.mp4))).toBe(true);
  });

  it('marks the channel for reconnection when Mastodon rejects the token', async () => {
    const revoked = simulator.addAccount('gone');
    const other = await organizationWithMastodon(ctx, simulator.origin, revoked);
    simulator.revoke(revoked);
    const response = await api(stack.baseUrl, other.apiKey, '/api/public/v1/posts', { method: 'POST', body: { type: 'now', posts: [{ integration: { id: other.channelId }, value: [{ content: 'Nope' }] }] } });
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toBe('The access token is invalid');
    expect((await ctx.db.channels.findById(other.channelId).lean())?.refreshNeeded).toBe(true);
    const integrations = await api(stack.baseUrl, other.apiKey, '/api/public/v1/integrations');
    expect(integrations.body).toMatchObject([{ refreshNeeded: true }]);
  });
});
