import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { waitFor } from '../../../test/support/stack.ts';
import { channelTestKit, expectError } from '../../../test/support/channel-test-kit.ts';
import type { RunningStack } from '../../../test/support/stack.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import type { TestContext } from '../../../test/support/test-context.ts';
import { trailingSlashes } from '../../../shared/net/trailing-slashes.ts';

describe('channel routes: list, delete, settings, groups, social', () => {
  const world = useSimulatedStack();
  const { call, mastodonOrg, insertChannel, addMastodonChannel, schedulePost } = channelTestKit(world);
  let ctx: TestContext;
  let stack: RunningStack;
  beforeAll(() => {
    ({ ctx, stack } = world);
  });

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

    it('takes `group`, the name Postiz clients send, as the same filter as `customer`', async () => {
      const org = await createOrganization(ctx.db, ctx.secrets, { name: 'Postiz client' });
      const a1 = await addMastodonChannel(org.organizationId, 'A one', 'Client A');
      await addMastodonChannel(org.organizationId, 'B one', 'Client B');
      await addMastodonChannel(org.organizationId, 'Loose');
      const customers = z.array(z.object({ id: z.string(), name: z.string() }))
        .parse((await call(org.apiKey, '/groups')).body);
      const clientA = customers.find((customer) => customer.name === 'Client A')?.id ?? '';
      const clientB = customers.find((customer) => customer.name === 'Client B')?.id ?? '';

      const byGroup = await call(org.apiKey, `/integrations?group=${clientA}`);
      expect(byGroup.status).toBe(200);
      expect(byGroup.body).toEqual([
        expect.objectContaining({ id: a1, name: 'A one', customer: { id: clientA, name: 'Client A' } }),
      ]);
      expect((await call(org.apiKey, `/integrations?group=${clientA}&customer=${clientA}`)).body).toEqual(byGroup.body);
      const message = expectError(
        await call(org.apiKey, `/integrations?group=${clientA}&customer=${clientB}`),
        400,
        'validation_failed',
      );
      expect(message).toBe(
        'group: customer and group are the same filter: give one of them, or the same value in both',
      );
      expect((await call(org.apiKey, `/integrations?group=${new Types.ObjectId().toString()}`)).body).toEqual([]);
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
      expect(await call(org.apiKey, `/integrations/${org.channelId}`, { method: 'DELETE' })).toMatchObject({
        status: 200, body: { id: org.channelId, deleted: true },
      });
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
      expect(await (await stack.publishQueue.getJob(publishJobId(strangerPost)))?.getState()).toBe('delayed');
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
      // What deleting with onPlatform=true does there, as the room declares it.
      const { removal } = (response.body as { output: { removal: unknown } }).output;
      expect(removal).toMatchObject({ supported: true, method: 'delete' });
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
      expect(url).toBe(`${ctx.config.FRONTEND_URL.replace(trailingSlashes, '')}/channels/connect/mastodon`);
      expect(url).toBe(`${ctx.config.FRONTEND_URL.replace(trailingSlashes, '')}/channels/connect/mastodon`);
      const message = expectError(await call(org.apiKey, '/social/myspace'), 404, 'not_found');
      expect(message).toContain('myspace');
    });
  });
});
