import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { api } from '../support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

const prefix = '/api/public/v1';

/**
 * A deployment that may not reach private addresses (ALLOW_PRIVATE_NETWORK=false, production's
 * default): such endpoints are refused at registration, and at delivery time for a name that
 * turned private after it was registered.
 */
describe('webhooks never reach private or local addresses unless the deployment allows it', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const target = new WebhookReceiver();

  beforeAll(async () => {
    await target.start();
    ctx = await createTestContext({
      ALLOW_PRIVATE_NETWORK: 'false',
      WORKER_QUEUES: 'webhook',
      WEBHOOK_DISPATCH_EVERY_MS: '100',
      // The outbox below queues no jobs: its deliveries reach the workers through the dispatcher.
      WEBHOOK_DISPATCH_GRACE_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_MS: '100',
      // The workers' log names the cause the organization's log leaves out.
      LOG_LEVEL: 'info',
    });
    stack = await startStack(ctx);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await target.close();
  });

  it('refuses plain http, private and loopback addresses and localhost at registration', async () => {
    const { apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Careful' });
    const refusals: [string, RegExp][] = [
      ['http://hooks.example/sps', /must use https$/],
      ['https://127.0.0.1:8443/sps', /private or local address/],
      ['https://[::1]/sps', /private or local address/],
      ['https://10.0.0.8/sps', /private or local address/],
      ['https://169.254.169.254/latest/meta-data', /private or local address/],
      ['https://[::ffff:192.168.1.1]/sps', /private or local address/],
      ['https://localhost:8443/sps', /private or local address/],
      ['https://api.localhost/sps', /private or local address/],
    ];
    for (const [url, message] of refusals) {
      const answer = await api(stack.baseUrl, apiKey, `${prefix}/webhooks`, {
        method: 'POST', body: { url, events: ['post.published'] },
      });
      expect(answer.status, url).toBe(400);
      expect(answer.body, url).toMatchObject({
        error: 'validation_failed', message: expect.stringMatching(message) as string,
        details: [{ path: 'url', message: expect.any(String) as string }],
      });
    }
    const accepted = await api(stack.baseUrl, apiKey, `${prefix}/webhooks`, {
      method: 'POST', body: { url: 'https://hooks.example/sps', events: ['post.published'] },
    });
    expect(accepted.status).toBe(201);
  });

  it('does not connect when an endpoint\'s name resolves to a loopback address at delivery time', async () => {
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Rebound' });
    // As an endpoint registered while its name was public is stored, once its DNS points inside.
    const port = new URL(target.url).port;
    const endpoint = await ctx.db.webhookEndpoints.create({
      organizationId: new Types.ObjectId(organizationId),
      url: `https://localhost:${port}/hooks/sps`,
      events: ['media.ready'],
      secretSealed: ctx.secrets.seal('whsec_test'),
    });
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    await outbox.emit(organizationId, 'media.ready', {
      id: organizationId, name: 'a.png', originalName: null, path: null, thumbnail: null, alt: null,
      mimeType: 'image/png', size: 1, status: 'ready',
    });
    const delivery = await waitFor(async () => {
      const found = await ctx.db.webhookDeliveries.findOne({ endpointId: endpoint._id }).lean();
      return found?.status === 'failed' ? found : undefined;
    }, { what: 'the delivery to fail' });
    expect(delivery.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [null, `could not connect to localhost:${port}`], [null, `could not connect to localhost:${port}`],
    ]);
    expect(target.received).toEqual([]);
    // The pinned lookup refused the address it resolved; only the workers' log says so. The last
    // attempt's line may reach the log just after its outcome is saved: waited for, not read at once.
    const refusedLines = await waitFor(() => {
      const lines = ctx.logLines
        .filter((line) => line.includes('"event":"webhook.') && line.includes('blocked_address'));
      return lines.length >= 2 ? lines : undefined;
    }, { what: 'both refused attempts in the workers\' log' });
    expect(refusedLines.length).toBeGreaterThanOrEqual(2);
  });
});
