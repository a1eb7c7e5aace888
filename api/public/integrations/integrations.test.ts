import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorBodySchema } from '../common-schemas.ts';
import { addTokenChannel } from '../../../shared/domain/channels/channels.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../../test/simulators/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const v1 = '/api/public/v1';

/** Every error answer is `{statusCode, error, message}` with statusCode equal to the HTTP status. */
function expectError(response: { status: number; body: unknown; headers: Headers }, status: number, code: string): string {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { statusCode: status, error: code } });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed = errorBodySchema.parse(response.body);
  expect(parsed.message.trim()).not.toBe('');
  return parsed.message;
}

const slotAnswer = z.object({ date: z.iso.datetime() });
const defaultPostingTimes = [560, 850, 1140];

/** The first default posting time strictly after `after` (what find-slot answers when nothing is taken). */
function firstSlotAfter(after: number, times: number[] = defaultPostingTimes): number {
  const day = new Date(after);
  const startOfDay = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate());
  for (let offset = 0; ; offset += 1) {
    for (const minutes of times) {
      const slot = startOfDay + offset * 86_400_000 + minutes * 60_000;
      if (slot > after) return slot;
    }
  }
}

describe('public integrations and groups routes', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const simulator = new MastodonSimulator();

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext();
    stack = await startStack(ctx);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
  });

  const call = (apiKey: string | null, path: string, init: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) => api(stack.baseUrl, apiKey, `${v1}${path}`, init);

  /** A fresh organization with a Mastodon channel on the simulator, under its own account. */
  async function mastodonOrg(): Promise<{ apiKey: string; organizationId: string; channelId: string; token: string }> {
    const token = simulator.addAccount(`acct${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(ctx, simulator.origin, token);
    return { apiKey: org.apiKey, organizationId: org.organizationId, channelId: org.channelId, token };
  }

  /** A channel of a platform SPS has no token flow for, stored the way a future OAuth flow would. */
  async function insertChannel(organizationId: string, provider: string): Promise<string> {
    const channel = await ctx.db.channels.create({ organizationId: new Types.ObjectId(organizationId), provider, name: `Our ${provider}`, tokenSealed: ctx.secrets.seal('x') });
    return channel._id.toString();
  }

  async function addMastodonChannel(organizationId: string, name: string, customer?: string): Promise<string> {
    const token = simulator.addAccount(name.replaceAll(' ', ''));
    return (await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, { organizationId, provider: 'mastodon', name, instanceUrl: simulator.origin, token, customer })).id;
  }

  async function schedulePost(apiKey: string, channelId: string, date: Date, value: { content: string; delay?: number }[] = [{ content: 'Scheduled' }]): Promise<string> {
    const response = await call(apiKey, '/posts', { method: 'POST', body: { type: 'schedule', date: date.toISOString(), posts: [{ integration: { id: channelId }, value }] } });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }

  describe('GET /integrations', () => {
    it('lists only the caller\'s channels, in the contract\'s shape, without tokens', async () => {
      const mine = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'secret-token-1');
      await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 'secret-token-2');
      const response = await api(stack.baseUrl, mine.apiKey, '/api/public/v1/integrations');
      expect(response.status).toBe(200);
      expect(response.body).toEqual([{ id: mine.channelId, name: 'Our Mastodon', identifier: 'mastodon', picture: null, disabled: false, refreshNeeded: false, profile: null }]);
      expect(JSON.stringify(response.body)).not.toContain('secret-token');
    });

    it('answers an empty array for an organization without channels', async () => {
      const other = await organizationWithMastodon(ctx, 'http://127.0.0.1:1234', 't');
      await ctx.db.channels.deleteMany({ _id: other.channelId });
      expect((await api(stack.baseUrl, other.apiKey, '/api/public/v1/integrations')).body).toEqual([]);
    });

    it('carries each channel\'s customer and filters by customer id', async () => {
      const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Agency' });
      const a1 = await addMastodonChannel(org.organizationId, 'A one', 'Client A');
      const b1 = await addMastodonChannel(org.organizationId, 'B one', 'Client B');
      const a2 = await addMastodonChannel(org.organizationId, 'A two', 'Client A');
      const loose = await addMastodonChannel(org.organizationId, 'Loose');
      const groups = z.array(z.object({ id: z.string(), name: z.string() })).parse((await call(org.apiKey, '/groups')).body);
      const clientA = groups.find((group) => group.name === 'Client A');
      const clientB = groups.find((group) => group.name === 'Client B');
      expect(clientA).toBeDefined();
      expect(clientB).toBeDefined();

      const all = await call(org.apiKey, '/integrations');
      expect(all.status).toBe(200);
      expect(all.body).toEqual([
        expect.objectContaining({ id: a1, name: 'A one', customer: clientA }),
        expect.objectContaining({ id: b1, name: 'B one', customer: clientB }),
        expect.objectContaining({ id: a2, name: 'A two', customer: clientA }),
        expect.not.objectContaining({ customer: expect.anything() as unknown }),
      ]);
      expect((all.body as { id: string }[])[3]?.id).toBe(loose);

      const onlyA = await call(org.apiKey, `/integrations?customer=${clientA?.id ?? ''}`);
      expect(onlyA.status).toBe(200);
      expect((onlyA.body as { id: string }[]).map((channel) => channel.id)).toEqual([a1, a2]);
      expect((onlyA.body as { customer?: unknown }[]).every((channel) => JSON.stringify(channel.customer) === JSON.stringify(clientA))).toBe(true);
      const onlyB = await call(org.apiKey, `/integrations?customer=${clientB?.id ?? ''}`);
      expect((onlyB.body as { id: string }[]).map((channel) => channel.id)).toEqual([b1]);
    });

    it('answers an empty array for an unknown customer id or another organization\'s customer', async () => {
      const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Filtered' });
      await addMastodonChannel(org.organizationId, 'Mine', 'Mine Inc');
      await addMastodonChannel(org.organizationId, 'No customer');
      const stranger = await createOrganization(ctx.db, ctx.secrets, { name: 'Stranger' });
      await addMastodonChannel(stranger.organizationId, 'Theirs', 'Theirs Inc');
      const strangerCustomer = await ctx.db.customers.findOne({ organizationId: stranger.organizationId }).lean();

      expect((await call(org.apiKey, `/integrations?customer=${new Types.ObjectId().toString()}`)).body).toEqual([]);
      expect((await call(org.apiKey, `/integrations?customer=${strangerCustomer?._id.toString() ?? ''}`)).body).toEqual([]);
    });

    // Regression: listChannels once turned a filter that is not an ObjectId into `customerId: null`,
    // which matched every channel WITHOUT a customer.
    it('answers an empty array for a customer filter that is not an id (not the channels without a customer)', async () => {
      const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Malformed filter' });
      await addMastodonChannel(org.organizationId, 'Mine', 'Mine Inc');
      await addMastodonChannel(org.organizationId, 'No customer');
      const response = await call(org.apiKey, '/integrations?customer=not-a-customer-id');
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    });

    it('rejects an empty customer filter with 400 validation_failed', async () => {
      const org = await mastodonOrg();
      expectError(await call(org.apiKey, '/integrations?customer='), 400, 'validation_failed');
    });
  });

  describe('DELETE /integrations/:id', () => {
    it('disconnects the channel, deletes its unpublished posts and cancels their jobs, keeps published ones', async () => {
      const org = await mastodonOrg();
      const published = (await call(org.apiKey, '/posts', { method: 'POST', body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: 'Already out' }] }] } })).body as { postId: string }[];
      const publishedId = published[0]?.postId ?? '';
      await waitFor(async () => ((await ctx.db.posts.findById(publishedId).lean())?.state === 'PUBLISHED' ? true : undefined), { what: 'the `now` post to publish' });

      const future = new Date(Date.now() + 3_600_000);
      const scheduledA = await schedulePost(org.apiKey, org.channelId, future, [{ content: 'Later 1/2' }, { content: 'Later 2/2', delay: 5 }]);
      const scheduledB = await schedulePost(org.apiKey, org.channelId, new Date(future.getTime() + 86_400_000));
      const draft = (await call(org.apiKey, '/posts', { method: 'POST', body: { type: 'draft', posts: [{ integration: { id: org.channelId }, value: [{ content: 'Maybe' }] }] } })).body as { postId: string }[];
      const draftId = draft[0]?.postId ?? '';
      for (const postId of [scheduledA, scheduledB]) expect(await (await stack.publishQueue.getJob(publishJobId(postId)))?.getState()).toBe('delayed');

      const response = await call(org.apiKey, `/integrations/${org.channelId}`, { method: 'DELETE' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id: org.channelId, deleted: true });

      expect((await call(org.apiKey, '/integrations')).body).toEqual([]);
      for (const postId of [scheduledA, scheduledB]) expect(await stack.publishQueue.getJob(publishJobId(postId))).toBeUndefined();
      const unpublished = await ctx.db.posts.find({ $or: [{ _id: { $in: [scheduledA, scheduledB, draftId] } }, { rootPostId: scheduledA }] }).lean();
      expect(unpublished).toHaveLength(4);
      expect(unpublished.every((post) => post.deletedAt !== null)).toBe(true);
      for (const postId of [scheduledA, scheduledB, draftId]) expectError(await call(org.apiKey, `/posts/${postId}`), 404, 'not_found');
      expect((await ctx.db.posts.findById(publishedId).lean())?.deletedAt).toBeNull();
    });

    it('answers 404 not_found once the channel is gone, and the other routes no longer find it', async () => {
      const org = await mastodonOrg();
      expect((await call(org.apiKey, `/integrations/${org.channelId}`, { method: 'DELETE' })).status).toBe(200);
      expectError(await call(org.apiKey, `/integrations/${org.channelId}`, { method: 'DELETE' }), 404, 'not_found');
      expectError(await call(org.apiKey, `/integration-settings/${org.channelId}`), 404, 'not_found');
      expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 404, 'not_found');
      expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 404, 'not_found');
    });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel, which stays connected', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      const strangerPost = await schedulePost(stranger.apiKey, stranger.channelId, new Date(Date.now() + 3_600_000));
      expectError(await call(org.apiKey, `/integrations/${new Types.ObjectId().toString()}`, { method: 'DELETE' }), 404, 'not_found');
      expectError(await call(org.apiKey, '/integrations/not-an-id', { method: 'DELETE' }), 404, 'not_found');
      expectError(await call(org.apiKey, `/integrations/${stranger.channelId}`, { method: 'DELETE' }), 404, 'not_found');

      expect((await call(stranger.apiKey, '/integrations')).body).toMatchObject([{ id: stranger.channelId }]);
      expect(await stack.publishQueue.getJob(publishJobId(strangerPost))).toBeDefined();
      expect((await ctx.db.posts.findById(strangerPost).lean())?.deletedAt).toBeNull();
      expect((await call(org.apiKey, '/integrations')).body).toMatchObject([{ id: org.channelId }]);
    });
  });

  describe('GET /integration-settings/:id', () => {
    it('describes a Mastodon channel: rules, 500 characters, a JSON Schema of its settings and its tools', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, `/integration-settings/${org.channelId}`);
      expect(response.status).toBe(200);
      const { output } = z.object({ output: z.object({ rules: z.string(), maxLength: z.number(), settings: z.unknown(), tools: z.array(z.unknown()) }) }).parse(response.body);
      expect(output.maxLength).toBe(500);
      expect(output.rules.length).toBeGreaterThan(0);
      expect(output.rules).toContain('Up to 4 images');
      expect(output.settings).toMatchObject({ type: 'object', properties: { visibility: { enum: ['public', 'unlisted', 'private', 'direct'] } } });
      expect(output.tools).toEqual([{ methodName: 'instanceLimits', description: expect.stringContaining('limits') as unknown, dataSchema: [] }]);
    });

    it('answers the fixed sentence for a platform without post settings', async () => {
      const org = await mastodonOrg();
      const nostrChannel = await insertChannel(org.organizationId, 'nostr');
      const response = await call(org.apiKey, `/integration-settings/${nostrChannel}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ output: { settings: 'No additional settings required', maxLength: 100000 } });
      expect((response.body as { output: { tools: { methodName: string }[] } }).output.tools.map((tool) => tool.methodName)).toEqual(['relays', 'relayLimits', 'profile']);
    });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      expectError(await call(org.apiKey, `/integration-settings/${new Types.ObjectId().toString()}`), 404, 'not_found');
      expectError(await call(org.apiKey, '/integration-settings/nope'), 404, 'not_found');
      expectError(await call(org.apiKey, `/integration-settings/${stranger.channelId}`), 404, 'not_found');
    });
  });

  describe('POST /integration-trigger/:id', () => {
    it('runs instanceLimits through the platform worker and answers what the instance reports', async () => {
      const org = await mastodonOrg();
      const before = simulator.requests.length;
      const response = await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        output: { maxCharacters: 500, maxMediaAttachments: 4, charactersReservedPerUrl: 23, supportedMimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4'] },
      });
      const asked = simulator.requests.slice(before).filter((request) => request.path === '/api/v2/instance');
      expect(asked).toHaveLength(1);
      expect(asked[0]?.headers.authorization).toBe(`Bearer ${org.token}`);
    });

    it('accepts (and passes on) a data object', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits', data: { unused: true } } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ output: { maxCharacters: 500 } });
    });

    it('answers 404 tool_not_found for a tool the platform does not have', async () => {
      const org = await mastodonOrg();
      const message = expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'flairs' } }), 404, 'tool_not_found');
      expect(message).toContain('flairs');
      const redditChannel = await insertChannel(org.organizationId, 'reddit');
      expectError(await call(org.apiKey, `/integration-trigger/${redditChannel}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 404, 'tool_not_found');
    });

    it('answers 501 not_implemented for a tool of a platform without an adapter, without queueing a call', async () => {
      const org = await mastodonOrg();
      const redditChannel = await insertChannel(org.organizationId, 'reddit');
      const nostrChannel = await insertChannel(org.organizationId, 'nostr');
      expectError(await call(org.apiKey, `/integration-trigger/${redditChannel}`, { method: 'POST', body: { methodName: 'flairs', data: { subreddit: 'typescript' } } }), 501, 'not_implemented');
      expectError(await call(org.apiKey, `/integration-trigger/${nostrChannel}`, { method: 'POST', body: { methodName: 'relays' } }), 501, 'not_implemented');
    });

    it('answers 400 for a missing, empty or too long methodName, a data that is not an object, and a body that is not JSON', async () => {
      const org = await mastodonOrg();
      const trigger = (init: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) => call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', ...init });
      const missing = expectError(await trigger({ body: {} }), 400, 'validation_failed');
      expect(missing).toContain('methodName');
      expectError(await trigger({ body: { data: {} } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: '' } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 'x'.repeat(101) } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 42 } }), 400, 'validation_failed');
      expectError(await trigger({ body: { methodName: 'instanceLimits', data: 'subreddit' } }), 400, 'validation_failed');
      expectError(await trigger({ rawBody: '{"methodName":', headers: { 'Content-Type': 'application/json' } }), 400, 'invalid_json');
    });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      const body = { methodName: 'instanceLimits' };
      expectError(await call(org.apiKey, `/integration-trigger/${new Types.ObjectId().toString()}`, { method: 'POST', body }), 404, 'not_found');
      expectError(await call(org.apiKey, '/integration-trigger/123', { method: 'POST', body }), 404, 'not_found');
      expectError(await call(org.apiKey, `/integration-trigger/${stranger.channelId}`, { method: 'POST', body }), 404, 'not_found');
    });

    it('answers 502 platform_error with the platform\'s own message when the instance refuses the call', async () => {
      const org = await mastodonOrg();
      // The instance URL no longer leads to a Mastodon API: the simulator answers 404 "Record not found".
      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { instanceUrl: `${simulator.origin}/moved-away` } });
      const message = expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 502, 'platform_error');
      expect(message).toContain('Record not found');
    });

    it('answers 502 platform_error naming the cause when the instance cannot be reached', async () => {
      const gone = await new MastodonSimulator().start();
      const token = gone.addAccount('gone');
      const org = await organizationWithMastodon(ctx, gone.origin, token);
      await gone.stop();
      const message = expectError(await call(org.apiKey, `/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } }), 502, 'platform_error');
      expect(message).toContain('ECONNREFUSED');
    });

    describe('when no worker answers', () => {
      let quiet: TestContext;
      let quietStack: RunningStack;

      beforeAll(async () => {
        quiet = await createTestContext({ PLATFORM_CALL_WAIT_MS: '300' });
        quietStack = await startStack(quiet, { workers: false });
      });
      afterAll(async () => {
        await quietStack.close();
        await quiet.cleanup();
      });

      it('answers 504 platform_timeout after the configured wait', async () => {
        const org = await organizationWithMastodon(quiet, simulator.origin, simulator.addAccount('quiet'));
        const started = Date.now();
        const response = await api(quietStack.baseUrl, org.apiKey, `${v1}/integration-trigger/${org.channelId}`, { method: 'POST', body: { methodName: 'instanceLimits' } });
        expect(Date.now() - started).toBeGreaterThanOrEqual(300);
        const message = expectError(response, 504, 'platform_timeout');
        expect(message).toContain('0.3 seconds');
      });
    });
  });

  describe('GET /find-slot/:id', () => {
    it('answers the next default posting time in the future', async () => {
      const org = await mastodonOrg();
      const before = Date.now();
      const response = await call(org.apiKey, `/find-slot/${org.channelId}`);
      const after = Date.now();
      expect(response.status).toBe(200);
      const { date } = slotAnswer.parse(response.body);
      expect(date).toMatch(/Z$/);
      const slot = new Date(date).getTime();
      expect(slot).toBeGreaterThan(before);
      expect(slot % 60_000).toBe(0);
      expect(defaultPostingTimes).toContain(new Date(slot).getUTCHours() * 60 + new Date(slot).getUTCMinutes());
      expect([firstSlotAfter(before), firstSlotAfter(after)]).toContain(slot);
    });

    it('skips a slot taken by a scheduled post of the channel, and offers it again once that post is deleted', async () => {
      const org = await mastodonOrg();
      const first = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      const postId = await schedulePost(org.apiKey, org.channelId, first);

      const beforeNext = Date.now();
      const next = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date).getTime();
      expect(next).toBeGreaterThan(first.getTime());
      expect(next).toBe(firstSlotAfter(Math.max(first.getTime(), beforeNext)));

      expect((await call(org.apiKey, `/posts/${postId}`, { method: 'DELETE' })).status).toBe(200);
      const beforeFreed = Date.now();
      const freed = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date).getTime();
      expect(freed).toBe(firstSlotAfter(beforeFreed));
      if (first.getTime() > beforeFreed) expect(freed).toBe(first.getTime());
    });

    it('ignores posts of the organization\'s other channels', async () => {
      const org = await mastodonOrg();
      const sibling = await addMastodonChannel(org.organizationId, 'Sibling');
      const first = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      await schedulePost(org.apiKey, sibling, first);
      const before = Date.now();
      const again = new Date(slotAnswer.parse((await call(org.apiKey, `/find-slot/${org.channelId}`)).body).date);
      expect(again.getTime()).toBe(firstSlotAfter(before));
      if (first.getTime() > before) expect(again.getTime()).toBe(first.getTime());
    });

    it('answers 409 conflict when the channel has no posting times or every one is taken for 90 days', async () => {
      const org = await mastodonOrg();
      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { postingTimes: [] } });
      expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 409, 'conflict');

      await ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { postingTimes: [600] } });
      const today = new Date();
      const startOfDay = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
      const channelId = new Types.ObjectId(org.channelId);
      const organizationId = new Types.ObjectId(org.organizationId);
      await ctx.db.posts.insertMany(Array.from({ length: 92 }, (_, day) => ({
        organizationId, channelId, group: 'full', position: 0, state: 'QUEUE', publishDate: new Date(startOfDay + day * 86_400_000 + 600 * 60_000),
      })));
      const message = expectError(await call(org.apiKey, `/find-slot/${org.channelId}`), 409, 'conflict');
      expect(message).toContain('90 days');
    });

    it('answers 404 not_found for an unknown id, a malformed id and another organization\'s channel', async () => {
      const org = await mastodonOrg();
      const stranger = await mastodonOrg();
      expectError(await call(org.apiKey, `/find-slot/${new Types.ObjectId().toString()}`), 404, 'not_found');
      expectError(await call(org.apiKey, '/find-slot/zzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
      expectError(await call(org.apiKey, `/find-slot/${stranger.channelId}`), 404, 'not_found');
    });
  });

  describe('GET /is-connected, /groups, /social/:provider', () => {
    it('answers {connected: true} for a valid key, 401 without one or with a wrong one', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, '/is-connected');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ connected: true });
      expect((await call(`Bearer ${org.apiKey}`, '/is-connected')).body).toEqual({ connected: true });
      expectError(await call(null, '/is-connected'), 401, 'missing_credentials');
      expectError(await call('not-a-key', '/is-connected'), 401, 'invalid_credentials');
    });

    it('lists the organization\'s customers, by name, and not another organization\'s', async () => {
      const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Groups' });
      await addMastodonChannel(org.organizationId, 'Zed channel', 'Zed Corp');
      await addMastodonChannel(org.organizationId, 'Acme channel', 'Acme');
      await addMastodonChannel(org.organizationId, 'Acme channel 2', 'Acme');
      const stranger = await createOrganization(ctx.db, ctx.secrets, { name: 'Other groups' });
      await addMastodonChannel(stranger.organizationId, 'Theirs', 'Secret Client');

      const response = await call(org.apiKey, '/groups');
      expect(response.status).toBe(200);
      const customers = await ctx.db.customers.find({ organizationId: org.organizationId }).lean();
      const idOf = (name: string) => customers.find((customer) => customer.name === name)?._id.toString();
      expect(response.body).toEqual([{ id: idOf('Acme'), name: 'Acme' }, { id: idOf('Zed Corp'), name: 'Zed Corp' }]);
    });

    it('answers an empty array for an organization without customers', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, '/groups');
      expect(response.status).toBe(200);
      expect(response.body).toEqual([]);
    });

    it('answers where to connect a Mastodon channel, and 404 for a platform SPS does not know', async () => {
      const org = await mastodonOrg();
      const response = await call(org.apiKey, '/social/mastodon');
      expect(response.status).toBe(200);
      const { url } = z.object({ url: z.url() }).parse(response.body);
      expect(url).toMatch(/\/channels\/connect\/mastodon$/);
      expect(url).toBe(`${ctx.config.FRONTEND_URL.replace(/\/+$/, '')}/channels/connect/mastodon`);
      const message = expectError(await call(org.apiKey, '/social/myspace'), 404, 'not_found');
      expect(message).toContain('myspace');
    });
  });
});
