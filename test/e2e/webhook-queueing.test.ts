import { Queue } from 'bullmq';
import { noCache } from '../../shared/cache/invalidation-bus.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { registerEndpoint } from '../../shared/domain/webhooks/webhook-endpoints.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { QueueName, webhookJobId } from '../../shared/queue/queues.ts';
import { createRedis, type RedisConnection } from '../../shared/queue/redis.ts';
import { WebhookDeliveryQueue } from '../../shared/queue/webhook-delivery-queue.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';

/** What the old dispatcher handed out per round, the deployment's whole rate at one round a second. */
const oldRoundCap = 200;

const disconnected = {
  channelId: '0123456789abcdef01234567', provider: 'mastodon', name: 'Ours', reason: 'the token was revoked',
};

/** An organization with one endpoint on `target`, subscribed to channel.disconnected. */
async function organizationWithEndpoint(ctx: TestContext, target: WebhookReceiver) {
  const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: `Hooks ${Date.now()}` });
  const deps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
  const { endpoint, secret } = await registerEndpoint(deps, organizationId, {
    url: target.url, events: ['channel.disconnected'],
  });
  target.secret = secret;
  return { organizationId, endpointId: endpoint.id };
}

describe('webhook deliveries are queued when written, with no deployment-wide cap', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let producer: RedisConnection;
  let deliveryJobs: WebhookDeliveryQueue;
  const target = new WebhookReceiver();

  beforeAll(async () => {
    await target.start();
    ctx = await createTestContext({
      WORKER_QUEUES: 'webhook',
      // One round an hour: whatever arrives within the test was queued when it was written.
      WEBHOOK_DISPATCH_EVERY_MS: '3600000',
      WEBHOOK_DISPATCH_GRACE_MS: '3600000',
      WEBHOOK_CONCURRENCY: '50',
    });
    stack = await startStack(ctx);
    producer = createRedis(ctx.config, 'producer', ctx.logger);
    deliveryJobs = new WebhookDeliveryQueue(producer, { prefix: queuePrefixOf(ctx.config) });
  });
  afterAll(async () => {
    await stack.close();
    await deliveryJobs.close();
    await producer.quit();
    await ctx.cleanup();
    await target.close();
  });

  it('delivers one event well within one dispatch interval of its write', async () => {
    const { organizationId } = await organizationWithEndpoint(ctx, target);
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date(), jobs: deliveryJobs });
    const written = Date.now();
    await outbox.emit(organizationId, 'channel.disconnected', disconnected);
    const [request] = await waitFor(() => (target.received.length > 0 ? target.received : undefined), {
      what: 'the delivery', timeoutMs: 10_000,
    });
    expect(request?.signatureValid).toBe(true);
    // The dispatcher runs once an hour here; the old one took up to a whole interval.
    expect((request?.receivedAt ?? Number.POSITIVE_INFINITY) - written).toBeLessThan(5_000);
    target.received.length = 0;
  });

  it('delivers 1,000 deliveries written at once, more than a round of the old dispatcher', async () => {
    const { organizationId, endpointId } = await organizationWithEndpoint(ctx, target);
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date(), jobs: deliveryJobs });
    const count = 1_000;
    const started = Date.now();
    const emit = () => outbox.emit(organizationId, 'channel.disconnected', disconnected);
    await Promise.all(Array.from({ length: count }, emit));
    await waitFor(() => (target.received.length >= count ? true : undefined), {
      what: `${count} deliveries received`, timeoutMs: 60_000,
    });
    const seconds = (Date.now() - started) / 1000;
    ctx.logger.info({ deliveries: count, seconds }, 'webhook burst received');
    expect(count).toBeGreaterThan(oldRoundCap);
    // Each delivery once, each signed, each logged as delivered with one attempt.
    expect(new Set(target.received.map((request) => request.headers['sps-delivery'])).size).toBe(count);
    expect(target.received.every((request) => request.signatureValid)).toBe(true);
    // The last outcomes are recorded just after their receiver answered.
    await waitFor(async () => {
      const delivered = await ctx.db.webhookDeliveries.countDocuments({ endpointId, status: 'delivered', attempt: 1 });
      return delivered === count ? delivered : undefined;
    }, { what: `${count} deliveries logged as delivered at their first attempt`, timeoutMs: 10_000 });
  }, 90_000);
});

describe('the dispatcher recovers deliveries whose job was lost', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let producer: RedisConnection;
  let deliveryJobs: WebhookDeliveryQueue;
  let webhookQueue: Queue;
  const target = new WebhookReceiver();
  const graceMs = 1_000;
  const retryWaitMs = 1_500;

  beforeAll(async () => {
    await target.start();
    ctx = await createTestContext({
      WORKER_QUEUES: 'webhook',
      WEBHOOK_DISPATCH_EVERY_MS: '200',
      WEBHOOK_DISPATCH_GRACE_MS: String(graceMs),
      WEBHOOK_RETRY_SCHEDULE_MS: String(retryWaitMs),
    });
    stack = await startStack(ctx);
    producer = createRedis(ctx.config, 'producer', ctx.logger);
    deliveryJobs = new WebhookDeliveryQueue(producer, { prefix: queuePrefixOf(ctx.config) });
    webhookQueue = new Queue(QueueName.webhook, { connection: producer, prefix: queuePrefixOf(ctx.config) });
  });
  afterAll(async () => {
    await stack.close();
    await webhookQueue.close();
    await deliveryJobs.close();
    await producer.quit();
    await ctx.cleanup();
    await target.close();
  });

  it('sends a delivery written without its job (a crash before queueing) once overdue by the grace', async () => {
    const { organizationId, endpointId } = await organizationWithEndpoint(ctx, target);
    // No queue: the delivery is written and its job never added, as a crash between the two leaves it.
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    const written = Date.now();
    await outbox.emit(organizationId, 'channel.disconnected', disconnected);
    const delivery = await waitFor(async () => {
      const found = await ctx.db.webhookDeliveries.findOne({ endpointId, status: 'delivered' }).lean();
      return found ?? undefined;
    }, { what: 'the recovered delivery', timeoutMs: 10_000 });
    expect(target.forDelivery(delivery._id.toString())).toHaveLength(1);
    expect((delivery.attempts[0]?.at.getTime() ?? 0) - written).toBeGreaterThanOrEqual(graceMs);
  });

  it('makes a retry whose delayed job was removed from Redis', async () => {
    const { organizationId, endpointId } = await organizationWithEndpoint(ctx, target);
    target.answers = [500];
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date(), jobs: deliveryJobs });
    await outbox.emit(organizationId, 'channel.disconnected', disconnected);
    const failed = await waitFor(async () => {
      const found = await ctx.db.webhookDeliveries.findOne({ endpointId, status: 'pending', attempt: 1 }).lean();
      return found ?? undefined;
    }, { what: 'the first attempt recorded', timeoutMs: 10_000 });
    const retryJobId = webhookJobId(failed._id.toString(), 1);
    // The retry waits in BullMQ's delayed set; removing it is what a Redis that lost its data does.
    const retryJob = await waitFor(async () => (await webhookQueue.getJob(retryJobId)) ?? undefined, {
      what: 'the delayed retry job', timeoutMs: 5_000,
    });
    expect(await retryJob.isDelayed()).toBe(true);
    expect(await webhookQueue.remove(retryJobId)).toBe(1);

    const delivered = await waitFor(async () => {
      const found = await ctx.db.webhookDeliveries.findOne({ _id: failed._id, status: 'delivered' }).lean();
      return found ?? undefined;
    }, { what: 'the retry made by the dispatcher', timeoutMs: 15_000 });
    const [first, second] = delivered.attempts.map((attempt) => attempt.at.getTime());
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 200]);
    // Not by the removed job (due at the retry wait) but once the grace had passed too.
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(retryWaitMs + graceMs);
    expect(target.forDelivery(failed._id.toString()).every((request) => request.signatureValid)).toBe(true);
  });
});
