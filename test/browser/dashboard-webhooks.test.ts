import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { DashboardClient, newAccount } from './dashboard-client.ts';

const secretPattern = /id="webhook-secret"[^>]*>(whsec_[A-Za-z0-9_-]{43})</;

/** The dashboard's webhook pages, spoken to over HTTP as a browser would, with deliveries made by the workers. */
describe('dashboard: webhook endpoints, their secret shown once, the delivery log and resend', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const target = new WebhookReceiver();
  const owner = newAccount('hooks');
  let client: DashboardClient;
  let organizationId = '';
  let endpointId = '';
  let firstSecret = '';

  beforeAll(async () => {
    await target.start();
    // The outbox below queues no jobs: its deliveries reach the workers through the dispatcher.
    ctx = await createTestContext({
      WORKER_QUEUES: 'webhook', WEBHOOK_DISPATCH_EVERY_MS: '100', WEBHOOK_DISPATCH_GRACE_MS: '100',
    });
    stack = await startStack(ctx);
    client = new DashboardClient(stack.baseUrl);
    expect((await client.signUp(owner)).status).toBe(302);
    const user = await ctx.db.users.findOne({ email: owner.email }).lean();
    organizationId = user?.organizationIds[0]?.toString() ?? '';
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await target.close();
  });

  it('adds an endpoint from the form and shows its secret once', async () => {
    const empty = await client.get('/webhooks');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('<a href="/webhooks" aria-current="page">Webhooks</a>');
    expect(empty.html).toContain('No endpoints yet.');

    const refused = await client.post('/webhooks', { url: 'ftp://hooks.example/sps', events: ['post.published'] });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('The URL must use https or http.');
    expect(refused.html).toContain('value="ftp://hooks.example/sps"');
    const noEvents = await client.post('/webhooks', { url: target.url });
    expect(noEvents.status).toBe(400);
    expect(noEvents.html).toContain('Choose at least one event.');

    const added = await client.post('/webhooks', { url: target.url, events: ['post.published', 'media.ready'] });
    expect(added.status).toBe(201);
    firstSecret = secretPattern.exec(added.html)?.[1] ?? '';
    expect(firstSecret).not.toBe('');
    target.secret = firstSecret;
    endpointId = /href="\/webhooks\/([0-9a-f]{24})"/.exec(added.html)?.[1] ?? '';
    expect(endpointId).not.toBe('');

    const later = await client.get('/webhooks');
    expect(later.html).toContain(target.url);
    expect(later.html).toContain('post.published, media.ready');
    expect(later.html).not.toContain(firstSecret);
    expect(later.html).not.toMatch(secretPattern);
  });

  it('shows a delivery in the log with its status code and duration, and resends it', async () => {
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    await outbox.emit(organizationId, 'post.published', {
      postId: '0123456789abcdef01234567', group: 'g', channelId: '0123456789abcdef01234568', provider: 'mastodon',
      releaseURL: 'https://mastodon.example/@us/1', publishedAt: new Date().toISOString(),
    });
    await waitFor(async () => {
      const delivered = await ctx.db.webhookDeliveries.findOne({ endpointId, status: 'delivered' }).lean();
      return delivered ?? undefined;
    }, { what: 'the delivery' });
    const log = await client.get(`/webhooks/${endpointId}`);
    expect(log.status).toBe(200);
    const rows = log.html.split('<tr>').slice(2);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('<code>post.published</code>');
    expect(rows[0]).toMatch(/<td>delivered<\/td>\s*<td>200<\/td>\s*<td>\d+ ms<\/td>/);
    expect(target.received).toHaveLength(1);
    expect(target.received[0]?.signatureValid).toBe(true);

    const action = /action="(\/webhooks\/deliveries\/[0-9a-f]{24}\/resend)"/.exec(log.html)?.[1] ?? '';
    const resent = await client.post(action, {});
    expect(resent).toMatchObject({ status: 302, location: `/webhooks/${endpointId}?resent=1` });
    await waitFor(() => (target.received.length === 2 ? true : undefined), { what: 'the resent delivery' });
    await waitFor(async () => {
      const count = await ctx.db.webhookDeliveries.countDocuments({ endpointId, status: 'delivered' });
      return count === 2 ? true : undefined;
    }, { what: 'both deliveries delivered' });
    const after = await client.get(`/webhooks/${endpointId}?resent=1`);
    expect(after.html).toContain('The delivery was queued again.');
    expect(after.html.split('<tr>').slice(2)).toHaveLength(2);
    expect(target.received[1]?.body).toBe(target.received[0]?.body);
    expect(target.received[1]?.headers['sps-delivery']).not.toBe(target.received[0]?.headers['sps-delivery']);
  });

  it('rotates the secret, showing the new one once', async () => {
    await client.get('/webhooks');
    const rotated = await client.post(`/webhooks/${endpointId}/rotate`, {});
    expect(rotated.status).toBe(200);
    const secret = secretPattern.exec(rotated.html)?.[1] ?? '';
    expect(secret).not.toBe('');
    expect(secret).not.toBe(firstSecret);
    expect((await client.get('/webhooks')).html).not.toContain(secret);
  });

  it('keeps another organization out of the endpoint and its log', async () => {
    const other = new DashboardClient(stack.baseUrl);
    await other.signUp(newAccount('outsider'));
    expect((await other.get(`/webhooks/${endpointId}`)).status).toBe(404);
    await other.get('/webhooks');
    expect((await other.post(`/webhooks/${endpointId}/rotate`, {})).status).toBe(404);
    expect((await other.post(`/webhooks/${endpointId}/delete`, {})).status).toBe(404);
    const delivery = await ctx.db.webhookDeliveries.findOne({ endpointId }).lean();
    expect((await other.post(`/webhooks/deliveries/${delivery?._id.toString() ?? ''}/resend`, {})).status).toBe(404);
    expect(await ctx.db.webhookDeliveries.countDocuments({ endpointId })).toBe(2);
  });

  it('deletes the endpoint', async () => {
    await client.get('/webhooks');
    const deleted = await client.post(`/webhooks/${endpointId}/delete`, {});
    expect(deleted).toMatchObject({ status: 302, location: '/webhooks?deleted=1' });
    const page = await client.get('/webhooks?deleted=1');
    expect(page.html).toContain('The endpoint was deleted.');
    expect(page.html).toContain('No endpoints yet.');
  });
});
