import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobId } from '../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../test/simulators/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { makeTestMedia } from '../../test/support/test-media.ts';

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
    ctx = await createTestContext({ PUBLISH_ATTEMPTS: '3', PUBLISH_BACKOFF_MS: '20' });
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

    const [notification] = await notificationsMentioning(String(statuses[0]?.id));
    expect(notification?.content).toBe(`Your post was published on Mastodon at ${statuses[0]?.url ?? ''}`);
    expect(notification?.link).toBe(statuses[0]?.url);
  });

  it('retries a 503 with backoff and publishes once the platform recovers', async () => {
    simulator.failNext({ status: 503, body: { error: 'Service Unavailable' } }, { status: 429, body: { error: 'Too many requests' } });
    const postId = await createPost([{ content: 'Survives a bad minute' }]);
    const root = await settled(postId);
    expect(root.state).toBe('PUBLISHED');
    expect(simulator.statuses.filter((status) => status.text === 'Survives a bad minute')).toHaveLength(1);
    const attempts = simulator.statusesCreatedRequests().filter((request) => (request.body as { status: string }).status === 'Survives a bad minute');
    expect(attempts).toHaveLength(3);
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
    const [notification] = await notificationsMentioning('forbidden word');
    expect(notification?.content).toBe('Your post could not be published on Mastodon: Validation failed: Text contains a forbidden word');
  });

  it('fails after the last attempt when the platform stays down', async () => {
    simulator.failNext(...Array.from({ length: 3 }, () => ({ status: 502, body: { error: 'Bad Gateway' } })));
    const postId = await createPost([{ content: 'Never makes it' }]);
    const root = await settled(postId);
    expect(root.state).toBe('ERROR');
    expect(root.error).toBe('Bad Gateway');
    expect(simulator.statuses.some((status) => status.text === 'Never makes it')).toBe(false);
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
    const job = await waitFor(async () => {
      const candidate = await stack.publishQueue.getJob(publishJobId(postId));
      return candidate !== undefined && (await candidate.getState()) === 'delayed' ? candidate : undefined;
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
    await stack.publishQueue.getJob(publishJobId(goneId)).then((job) => job?.changeDelay(0));
    const failed = await settled(goneId);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toMatch(/no longer in the library/);
    expect(simulator.statuses.some((candidate) => candidate.text === 'Lost picture')).toBe(false);
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
