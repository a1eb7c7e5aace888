import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { WebhookOutbox } from '../../../shared/domain/webhooks/webhook-outbox.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const prefix = '/api/public/v1';

interface CreatedEndpoint {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  secret: string;
}

interface ListedDelivery {
  id: string;
  eventId: string;
  status: string;
  resentFrom: string | null;
}

/** Registering, listing, rotating and removing endpoints, and the delivery log, through the public API. */
describe('webhook endpoints in the public API', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let owner: { apiKey: string; organizationId: string };
  let stranger: { apiKey: string; organizationId: string };

  beforeAll(async () => {
    ctx = await createTestContext();
    // No workers: deliveries stay pending, so the log is exactly what the outbox wrote.
    stack = await startStack(ctx, { workers: false });
    owner = await createOrganization(ctx.db, ctx.secrets, { name: 'Hook owner' });
    stranger = await createOrganization(ctx.db, ctx.secrets, { name: 'Someone else' });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const call = (apiKey: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    api(stack.baseUrl, apiKey, `${prefix}${path}`, init);

  async function register(apiKey: string, url: string, events: string[]): Promise<CreatedEndpoint> {
    const created = await call(apiKey, '/webhooks', { method: 'POST', body: { url, events } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as CreatedEndpoint;
  }

  it('refuses URLs and events it cannot deliver, naming the problem', async () => {
    const refusals: [unknown, RegExp][] = [
      [{ url: 'not a url', events: ['post.published'] }, /absolute URL/],
      [{ url: 'ftp://hooks.example/sps', events: ['post.published'] }, /https or http/],
      [{ url: 'https://user:secret@hooks.example/sps', events: ['post.published'] }, /user name or password/],
      [{ url: 'https://hooks.example/sps#part', events: ['post.published'] }, /fragment/],
      [{ url: `https://hooks.example/${'a'.repeat(2048)}`, events: ['post.published'] }, /2048/],
      [{ url: 'https://hooks.example/sps', events: [] }, /events/],
      [{ url: 'https://hooks.example/sps', events: ['post.exploded'] }, /events/],
      [{ url: 'https://hooks.example/sps' }, /events/],
    ];
    for (const [body, message] of refusals) {
      const answer = await call(owner.apiKey, '/webhooks', { method: 'POST', body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      const expected = { error: 'validation_failed', message: expect.stringMatching(message) as string };
      expect(answer.body, JSON.stringify(body)).toMatchObject(expected);
    }
    expect(await ctx.db.webhookEndpoints.countDocuments()).toBe(0);
  });

  it('shows the secret once, at registration, and keeps it sealed', async () => {
    const created = await register(owner.apiKey, 'https://hooks.example/sps', ['post.failed', 'post.published']);
    expect(created).toMatchObject({ url: 'https://hooks.example/sps', events: ['post.published', 'post.failed'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const listed = await call(owner.apiKey, '/webhooks');
    expect(listed.status).toBe(200);
    const { secret: _shownOnce, ...listedEndpoint } = created;
    expect(listed.body).toEqual({ webhooks: [listedEndpoint] });
    const stored = await ctx.db.webhookEndpoints.findById(created.id).lean();
    expect(JSON.stringify(stored)).not.toContain(created.secret);
    expect(ctx.secrets.open(stored?.secretSealed ?? '')).toBe(created.secret);
    expect((await call(stranger.apiKey, '/webhooks')).body).toEqual({ webhooks: [] });
  });

  it('rotates the secret: a new one, shown once, replaces the old', async () => {
    const created = await register(owner.apiKey, 'https://hooks.example/rotate', ['media.ready']);
    const rotated = await call(owner.apiKey, `/webhooks/${created.id}/secret`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const { secret } = rotated.body as CreatedEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    const stored = await ctx.db.webhookEndpoints.findById(created.id).lean();
    expect(ctx.secrets.open(stored?.secretSealed ?? '')).toBe(secret);
  });

  it('resends a delivery as a new one with the same body; the log lists both, newest first', async () => {
    const created = await register(owner.apiKey, 'https://hooks.example/log', ['channel.disconnected']);
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    await outbox.emit(owner.organizationId, 'channel.disconnected', {
      channelId: '0123456789abcdef01234567', provider: 'mastodon', name: 'Ours', reason: 'token revoked',
    });
    const first = await call(owner.apiKey, `/webhooks/${created.id}/deliveries`);
    expect(first.status).toBe(200);
    const [original] = (first.body as { deliveries: ListedDelivery[] }).deliveries;
    expect(original).toMatchObject({ status: 'pending', resentFrom: null });

    const resendPath = `/webhooks/deliveries/${original?.id ?? ''}/resend`;
    const resent = await call(owner.apiKey, resendPath, { method: 'POST' });
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ status: 'pending', resentFrom: original?.id, eventId: original?.eventId });
    const copy = resent.body as ListedDelivery;
    expect(copy.id).not.toBe(original?.id);
    const log = await call(owner.apiKey, `/webhooks/${created.id}/deliveries?limit=10`);
    expect((log.body as { deliveries: ListedDelivery[] }).deliveries.map((delivery) => delivery.id))
      .toEqual([copy.id, original?.id]);
    const bodies = await ctx.db.webhookDeliveries.find({ endpointId: created.id }).lean();
    expect(new Set(bodies.map((delivery) => delivery.body)).size).toBe(1);

    const oneOnly = await call(owner.apiKey, `/webhooks/${created.id}/deliveries?limit=1`);
    const newest = (oneOnly.body as { deliveries: ListedDelivery[] }).deliveries;
    expect(newest.map((delivery) => delivery.id)).toEqual([copy.id]);
    for (const limit of ['0', '101', 'ten']) {
      const refused = await call(owner.apiKey, `/webhooks/${created.id}/deliveries?limit=${limit}`);
      expect(refused.status, limit).toBe(400);
    }
  });

  it('answers 404 for another organization\'s endpoint or delivery, and changes nothing', async () => {
    const created = await register(owner.apiKey, 'https://hooks.example/private', ['post.failed']);
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    await outbox.emit(owner.organizationId, 'post.failed', {
      postId: '0123456789abcdef01234567', group: 'g', channelId: '0123456789abcdef01234568', provider: 'x',
      error: 'refused', category: 'permanent', attempts: [],
    });
    const delivery = await ctx.db.webhookDeliveries.findOne({ endpointId: created.id }).lean();
    const attempts = [
      call(stranger.apiKey, `/webhooks/${created.id}`, { method: 'DELETE' }),
      call(stranger.apiKey, `/webhooks/${created.id}/secret`, { method: 'POST' }),
      call(stranger.apiKey, `/webhooks/${created.id}/deliveries`),
      call(stranger.apiKey, `/webhooks/deliveries/${delivery?._id.toString() ?? ''}/resend`, { method: 'POST' }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: 'not_found' });
    }
    const stored = await ctx.db.webhookEndpoints.findById(created.id).lean();
    expect(ctx.secrets.open(stored?.secretSealed ?? '')).toBe(created.secret);
    expect(await ctx.db.webhookDeliveries.countDocuments({ endpointId: created.id })).toBe(1);
  });

  it('deletes an endpoint with its delivery log', async () => {
    const created = await register(owner.apiKey, 'https://hooks.example/gone', ['post.published']);
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    await outbox.emit(owner.organizationId, 'post.published', {
      postId: '0123456789abcdef01234567', group: 'g', channelId: '0123456789abcdef01234568', provider: 'x',
      releaseURL: 'https://x.example/1', publishedAt: new Date().toISOString(),
    });
    expect(await ctx.db.webhookDeliveries.countDocuments({ endpointId: created.id })).toBe(1);
    const deleted = await call(owner.apiKey, `/webhooks/${created.id}`, { method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, body: { id: created.id, deleted: true } });
    expect(await ctx.db.webhookDeliveries.countDocuments({ endpointId: created.id })).toBe(0);
    expect((await call(owner.apiKey, `/webhooks/${created.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('caps endpoints per organization with a 409 that says so', async () => {
    const { apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Many hooks' });
    for (let index = 0; index < 20; index += 1) {
      await register(apiKey, `https://hooks.example/${index}`, ['media.ready']);
    }
    const body = { url: 'https://hooks.example/21', events: ['media.ready'] };
    const refused = await call(apiKey, '/webhooks', { method: 'POST', body });
    expect(refused.status).toBe(409);
    const atMost = expect.stringContaining('at most 20') as string;
    expect(refused.body).toMatchObject({ error: 'conflict', message: atMost });
  });
});
