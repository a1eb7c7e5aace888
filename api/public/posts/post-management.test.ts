import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrCreateCustomer } from '../../../shared/domain/customers/customers.ts';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import { createMastodonAdapter } from '../../../shared/platforms/mastodon/adapter.ts';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { expectError } from '../../../test/support/channel-test-kit.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

interface Listed { id: string; content: string; state: string; group: string; publishDate: string; integration: { id: string; providerIdentifier: string }; settings: Record<string, unknown> }

describe('post routes: list, get, delete, status, edit and reschedule, missing, release id', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const simulator = new MastodonSimulator();
  let org: { apiKey: string; organizationId: string; channelId: string };
  let other: { apiKey: string; channelId: string };
  const inOneDay = () => new Date(Date.now() + 86_400_000);

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({ WORKER_QUEUES: 'platform' }); // publishing is not under test here
    stack = await startStack(ctx);
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('acme'));
    other = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('other'));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  const call = (path: string, init: { method?: string; body?: unknown } = {}, apiKey = org.apiKey) => api(stack.baseUrl, apiKey, `/api/public/v1${path}`, init);
  async function schedule(content: string[], date = inOneDay(), extra: Record<string, unknown> = {}): Promise<string> {
    const response = await call('/posts', { method: 'POST', body: { type: 'schedule', date: date.toISOString(), posts: [{ integration: { id: org.channelId }, value: content.map((text) => ({ content: text })), ...extra }] } });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }
  const jobState = async (postId: string) => (await stack.publishQueue.getJob(publishJobId(postId)))?.getState();

  it('GET /posts lists root posts in the range with the contract\'s fields', async () => {
    const date = new Date('2031-03-10T09:00:00Z');
    const id = await schedule(['Listed root', 'Listed reply'], date);
    const response = await call(`/posts?startDate=2031-03-10T00:00:00Z&endDate=2031-03-11T00:00:00Z`);
    expect(response.status).toBe(200);
    const { posts } = response.body as { posts: Listed[] };
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ id, content: 'Listed root', state: 'QUEUE', publishDate: date.toISOString(), releaseId: null, releaseURL: null, intervalInDays: null, error: null, tags: [], settings: { __type: 'mastodon' }, integration: { id: org.channelId, providerIdentifier: 'mastodon', name: 'Our Mastodon', picture: null } });
    expect((await call('/posts?startDate=2031-03-11T00:00:01Z&endDate=2031-03-12T00:00:00Z')).body).toEqual({ posts: [] });
    expect((await call('/posts?startDate=2031-03-10&endDate=2031-03-11', {}, other.apiKey)).body).toEqual({ posts: [] });
  });

  it('GET /posts filters by customer', async () => {
    const customer = await findOrCreateCustomer(ctx.db, org.organizationId, 'Client A');
    const date = new Date('2031-04-01T09:00:00Z');
    const id = await schedule(['For client A'], date);
    const from = '2031-04-01T00:00:00Z';
    const to = '2031-04-02T00:00:00Z';
    expect(((await call(`/posts?startDate=${from}&endDate=${to}&customer=${customer._id.toString()}`)).body as { posts: Listed[] }).posts).toEqual([]);
    await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { customerId: customer._id } });
    const filtered = (await call(`/posts?startDate=${from}&endDate=${to}&customer=${customer._id.toString()}`)).body as { posts: Listed[] };
    expect(filtered.posts.map((post) => post.id)).toEqual([id]);
    await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { customerId: null } });
  });

  it.each([
    ['no dates', '', /^startDate: /],
    ['no end', '?startDate=2031-01-01', /^endDate: /],
    ['bad date', '?startDate=yesterday&endDate=2031-01-01', /^startDate: must be an ISO 8601 date/],
    ['end before start', '?startDate=2031-02-01&endDate=2031-01-01', /^endDate must not be before startDate$/],
    ['range over 366 days', '?startDate=2030-01-01&endDate=2031-06-01', /^the date range may span at most 366 days/],
  ])('GET /posts answers 400 for %s, saying what is wrong', async (_name, query, message) => {
    expect(expectError(await call(`/posts${query}`), 400, 'validation_failed')).toMatch(message);
  });

  it('GET /posts/:id shows the thread with each part\'s state; other organizations get 404', async () => {
    const id = await schedule(['Root', 'Second', 'Third']);
    const response = await call(`/posts/${id}`);
    expect(response.status).toBe(200);
    const post = response.body as Listed & { value: { id: string; content: string; state: string; delay: number }[] };
    expect(post.id).toBe(id);
    expect(post.value.map((part) => [part.content, part.state])).toEqual([['Root', 'QUEUE'], ['Second', 'QUEUE'], ['Third', 'QUEUE']]);
    expect(post.value[0]?.id).toBe(id);
    // A reply's id is not a post of its own; another organization's post does not exist for us.
    for (const missing of [new Types.ObjectId().toString(), 'nope', post.value[1]?.id ?? '']) {
      expect(expectError(await call(`/posts/${missing}`), 404, 'not_found'))
        .toBe(`post ${JSON.stringify(missing)} was not found`);
    }
    expectError(await call(`/posts/${id}`, {}, other.apiKey), 404, 'not_found');
  });

  it('DELETE /posts/:id removes the post and its comments and cancels its job', async () => {
    const id = await schedule(['Doomed', 'Doomed reply']);
    expect(await jobState(id)).toBe('delayed');
    expectError(await call(`/posts/${id}`, { method: 'DELETE' }, other.apiKey), 404, 'not_found');
    expect(await jobState(id)).toBe('delayed');
    const response = await call(`/posts/${id}`, { method: 'DELETE' });
    expect(response).toMatchObject({ status: 200, body: { id, deleted: true } });
    expect(await jobState(id)).toBeUndefined();
    expect(await ctx.db.posts.countDocuments({ $or: [{ _id: id }, { rootPostId: id }], deletedAt: null })).toBe(0);
    expectError(await call(`/posts/${id}`), 404, 'not_found');
    expectError(await call(`/posts/${id}`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('DELETE /posts/group/:group removes every post of the group', async () => {
    const group = `launch-${Date.now()}`;
    const first = await schedule(['Group one'], inOneDay(), { group });
    const second = await schedule(['Group two'], inOneDay(), { group });
    expectError(await call(`/posts/group/${group}`, { method: 'DELETE' }, other.apiKey), 404, 'not_found');
    expect(await jobState(first)).toBe('delayed');
    const response = await call(`/posts/group/${group}`, { method: 'DELETE' });
    expect(response).toMatchObject({ status: 200, body: { group, deleted: 2, skipped: [] } });
    expect(await jobState(first)).toBeUndefined();
    expect(await jobState(second)).toBeUndefined();
    expectError(await call(`/posts/group/${group}`, { method: 'DELETE' }), 404, 'not_found');
  });

  it('PUT /posts/:id/status: draft removes the job, schedule puts it back', async () => {
    const id = await schedule(['Flip flop', 'and its reply']);
    expect(await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'draft' } })).toMatchObject({ status: 200, body: { id, state: 'DRAFT' } });
    expect(await jobState(id)).toBeUndefined();
    expect((await ctx.db.posts.find({ rootPostId: id }).lean()).map((part) => part.state)).toEqual(['DRAFT']);
    expect(await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'schedule' } })).toMatchObject({ status: 200, body: { id, state: 'QUEUE' } });
    expect(await jobState(id)).toBe('delayed');
    expect(expectError(
      await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'published' } }),
      400,
      'validation_failed',
    )).toMatch(/^status: /);
    expectError(
      await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'draft' } }, other.apiKey),
      404,
      'not_found',
    );
    expect(await jobState(id)).toBe('delayed');
    await ctx.db.posts.updateOne({ _id: id }, { $set: { state: 'PUBLISHED', releaseId: '1' } });
    expect(await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'draft' } })).toMatchObject({ status: 409, body: { error: 'conflict' } });
  });

  it('rescheduling an existing post (value[0].id) moves its job; "update" edits without touching it', async () => {
    const id = await schedule(['Original'], new Date(Date.now() + 3_600_000));
    // The root counts its replies on every write, so publishing knows whether to read them.
    const replyCount = async () => (await ctx.db.posts.findById(id).lean())?.replyCount;
    expect(await replyCount()).toBe(0);
    const before = await stack.publishQueue.getJob(publishJobId(id));
    const later = new Date(Date.now() + 5 * 86_400_000);
    const moved = await call('/posts', { method: 'POST', body: { type: 'schedule', date: later.toISOString(), posts: [{ integration: { id: org.channelId }, value: [{ id, content: 'Moved' }, { content: 'New reply' }] }] } });
    expect(moved).toMatchObject({ status: 201, body: [{ postId: id, integration: org.channelId }] });
    const after = await stack.publishQueue.getJob(publishJobId(id));
    expect((after?.timestamp ?? 0) + (after?.delay ?? 0)).toBeGreaterThan((before?.timestamp ?? 0) + (before?.delay ?? 0) + 3 * 86_400_000);
    const stored = (await call(`/posts/${id}`)).body as { publishDate: string; value: { content: string }[] };
    expect(stored.publishDate).toBe(later.toISOString());
    expect(stored.value.map((part) => part.content)).toEqual(['Moved', 'New reply']);
    expect(await replyCount()).toBe(1);

    const edited = await call('/posts', { method: 'POST', body: { type: 'update', posts: [{ integration: { id: org.channelId }, value: [{ id, content: 'Edited only' }] }] } });
    expect(edited).toMatchObject({ status: 201, body: [{ postId: id, integration: org.channelId }] });
    const unchanged = await stack.publishQueue.getJob(publishJobId(id));
    expect(unchanged?.timestamp).toBe(after?.timestamp);
    const reread = (await call(`/posts/${id}`)).body as { publishDate: string; value: { content: string }[] };
    expect(reread).toMatchObject({ publishDate: later.toISOString(), value: [{ content: 'Edited only' }] });
    expect(await replyCount()).toBe(0);
  });

  it('refuses edits of unknown, foreign or published posts, and "update" without an id', async () => {
    const foreign = await call('/posts', { method: 'POST', body: { type: 'draft', posts: [{ integration: { id: other.channelId }, value: [{ content: 'theirs' }] }] } }, other.apiKey);
    const foreignId = (foreign.body as { postId: string }[])[0]?.postId ?? '';
    const edit = (id: string) => call('/posts', { method: 'POST', body: { type: 'update', posts: [{ integration: { id: org.channelId }, value: [{ id, content: 'x' }] }] } });
    for (const id of [foreignId, new Types.ObjectId().toString()]) {
      const response = await edit(id);
      expect(expectError(response, 404, 'not_found')).toBe(`post ${JSON.stringify(id)} was not found`);
      expect(response.body).toMatchObject({ details: [{ path: 'posts.0.value.0.id' }] });
    }
    expect((await ctx.db.posts.findById(foreignId).lean())?.content).toBe('theirs');
    const published = await schedule(['Already out']);
    await ctx.db.posts.updateOne({ _id: published }, { $set: { state: 'PUBLISHED', releaseId: '42' } });
    expect((await edit(published)).body).toMatchObject({ statusCode: 409, error: 'conflict' });
    const unnamed = await call('/posts', { method: 'POST', body: { type: 'update', posts: [{ integration: { id: org.channelId }, value: [{ content: 'x' }] }] } });
    expect(unnamed.body).toMatchObject({ statusCode: 400, details: [{ path: 'posts.0.value.0.id' }] });
  });

  it('checks platform rules per channel, naming the channel, platform and rule; drafts skip them', async () => {
    const tooLong = await call('/posts', { method: 'POST', body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: 'ok' }, { content: 'é'.repeat(501) }] }] } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'posts.0.value.1.content', message: 'Mastodon channel "Our Mastodon": has 501 characters; Mastodon allows 500' }] });
    expect((tooLong.body as { message: string }).message).toMatch(/^posts\.0\.value\.1\.content: Mastodon channel "Our Mastodon"/);
    const badSetting = await call('/posts', { method: 'POST', body: { type: 'schedule', date: inOneDay().toISOString(), posts: [{ integration: { id: org.channelId }, settings: { visibility: 'everyone' }, value: [{ content: 'ok' }] }] } });
    expect(badSetting.body).toMatchObject({ statusCode: 400, details: [{ path: 'posts.0.settings.visibility' }] });
    const draft = await call('/posts', {
      method: 'POST',
      body: {
        type: 'draft',
        posts: [{
          integration: { id: org.channelId },
          settings: { visibility: 'everyone' },
          value: [{ content: 'é'.repeat(501) }],
        }],
      },
    });
    expect(draft.status).toBe(201);
    const stored = await ctx.db.posts.findById((draft.body as { postId: string }[])[0]?.postId).lean();
    expect(stored).toMatchObject({
      state: 'DRAFT', content: 'é'.repeat(501), settings: { visibility: 'everyone', __type: 'mastodon' },
    });
  });

  it('GET /posts/:id/missing lists recent platform content only for posts whose release id is "missing"', async () => {
    const id = await schedule(['Published somewhere']);
    expect(await call(`/posts/${id}/missing`)).toMatchObject({ status: 409, body: { error: 'not_missing' } });
    await ctx.db.posts.updateOne({ _id: id }, { $set: { releaseId: 'missing', state: 'PUBLISHED' } });
    const token = simulator.addAccount('picker');
    const picker = await organizationWithMastodon(ctx, simulator.origin, token);
    const pickerPost = await call('/posts', { method: 'POST', body: { type: 'schedule', date: inOneDay().toISOString(), posts: [{ integration: { id: picker.channelId }, value: [{ content: 'x' }] }] } }, picker.apiKey);
    const pickerId = (pickerPost.body as { postId: string }[])[0]?.postId ?? '';
    await ctx.db.posts.updateOne({ _id: pickerId }, { $set: { releaseId: 'missing', state: 'PUBLISHED' } });
    // The item the platform holds (made directly, as if the earlier publish had succeeded).
    const made = await createMastodonAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) }).publish({
      channel: { channelId: 'c', accessToken: token, instanceUrl: simulator.origin },
      content: 'The real one',
      media: [],
      settings: {},
      idempotencyKey: 'k-missing',
      checkpoint: memoryCheckpoint(),
    });
    const response = await call(`/posts/${pickerId}/missing`, {}, picker.apiKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ id: made.releaseId, url: made.releaseURL }]);
    // Another organization's post: not found, and nothing of the picker's platform is shown.
    expectError(await call(`/posts/${pickerId}/missing`), 404, 'not_found');
  });

  it('PUT /posts/:id/release-id answers 409 unless the release id is "missing", then stores it', async () => {
    const id = await schedule(['Pick me']);
    expect(await call(`/posts/${id}/release-id`, { method: 'PUT', body: { releaseId: '123' } })).toMatchObject({ status: 409, body: { error: 'not_missing' } });
    await ctx.db.posts.updateOne({ _id: id }, { $set: { releaseId: 'missing', state: 'PUBLISHED' } });
    const missingField = await call(`/posts/${id}/release-id`, { method: 'PUT', body: {} });
    expectError(missingField, 400, 'validation_failed');
    expect(missingField.body).toMatchObject({ details: [{ path: 'releaseId' }] });
    const response = await call(`/posts/${id}/release-id`, { method: 'PUT', body: { releaseId: '123' } });
    expect(response).toMatchObject({ status: 200, body: { id, releaseId: '123', state: 'PUBLISHED' } });
    expectError(
      await call(`/posts/${id}/release-id`, { method: 'PUT', body: { releaseId: '456' } }),
      409,
      'not_missing',
    );
    expect((await ctx.db.posts.findById(id).lean())?.releaseId).toBe('123');
  });

  it('caps JSON bodies outside POST /posts at 1 MB', async () => {
    const id = await schedule(['Small body route']);
    const response = await call(`/posts/${id}/status`, { method: 'PUT', body: { status: 'draft', padding: 'x'.repeat(1_100_000) } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: 'payload_too_large' });
    expect((response.body as { message: string }).message).toMatch(/^PayloadTooLargeError/);
  });
});
