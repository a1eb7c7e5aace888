import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { createRedis, type RedisConnection } from '../../shared/queue/redis.ts';
import { WebhookDeliveryQueue } from '../../shared/queue/webhook-delivery-queue.ts';
import type { WebhookEventType } from '../../shared/domain/webhooks/webhook-events.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { samplePng } from '../support/sample-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.ts';

const prefix = '/api/public/v1';
/** Short waits so the schedule runs within a test: two retries, 400 ms apart. */
const retryWaitMs = 400;

type Verifier = (signatureHeader: string, rawBody: string, secret: string) => boolean;

/** docs/api.md's verification snippet (section "Webhooks") run as written: the documented check is the one tested. */
async function readmeVerifier(): Promise<Verifier> {
  const readme = readFileSync(path.join(import.meta.dirname, '../../docs/api.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('\n## Webhooks')))?.[1];
  if (code === undefined) throw new Error('docs/api.md has no verification snippet under "Webhooks"');
  const folder = mkdtempSync(path.join(tmpdir(), 'sps-readme-'));
  try {
    const file = path.join(folder, 'verify.mjs');
    writeFileSync(file, `${code}\nexport { isFromSps };\n`);
    const loaded = await import(pathToFileURL(file).href) as { isFromSps?: unknown };
    if (typeof loaded.isFromSps !== 'function') throw new Error('the snippet defines no isFromSps');
    // A module written at run time has no types: the check above and the snippet's text are the contract.
    const verify = loaded.isFromSps as Verifier;
    return (header, body, secret) => verify(header, body, secret);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface LoggedAttempt {
  at: string;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

interface LoggedDelivery {
  id: string;
  event: string;
  eventId: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: LoggedAttempt[];
  resentFrom: string | null;
}

/**
 * Deliveries end to end: the api, the workers (the webhook queue's dispatcher and attempts
 * included) and a receiver on loopback that checks every signature with its own code.
 */
describe('webhook deliveries: signed, retried on a schedule, logged, resent', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let producer: RedisConnection;
  let deliveryJobs: WebhookDeliveryQueue;
  const simulator = new MastodonSimulator();
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({
      WEBHOOK_DISPATCH_EVERY_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_MS: `${retryWaitMs},${retryWaitMs}`,
      WEBHOOK_TIMEOUT_MS: '1500',
    });
    stack = await startStack(ctx);
    producer = createRedis(ctx.config, 'producer', ctx.logger);
    deliveryJobs = new WebhookDeliveryQueue(producer, { prefix: queuePrefixOf(ctx.config) });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await stack.close();
    await deliveryJobs.close();
    await producer.quit();
    await ctx.cleanup();
    await simulator.stop();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await new WebhookReceiver().start();
    receivers.push(started);
    return started;
  }

  /** Registers the receiver through the API for `events`; it then checks signatures with the secret shown. */
  async function subscribe(apiKey: string, target: WebhookReceiver, events: WebhookEventType[]): Promise<string> {
    const created = await api(stack.baseUrl, apiKey, `${prefix}/webhooks`, {
      method: 'POST', body: { url: target.url, events },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, secret } = created.body as { id: string; secret: string };
    target.secret = secret;
    return id;
  }

  async function deliveryLog(apiKey: string, endpointId: string): Promise<LoggedDelivery[]> {
    const answer = await api(stack.baseUrl, apiKey, `${prefix}/webhooks/${endpointId}/deliveries`);
    expect(answer.status).toBe(200);
    return (answer.body as { deliveries: LoggedDelivery[] }).deliveries;
  }

  /** The log once every delivery in it is delivered or failed. */
  function settledLog(apiKey: string, endpointId: string, count = 1): Promise<LoggedDelivery[]> {
    return waitFor(async () => {
      const log = await deliveryLog(apiKey, endpointId);
      const settled = log.length >= count && log.every((entry) => ['delivered', 'failed'].includes(entry.status));
      return settled ? log : undefined;
    }, { what: `${count} settled deliveries to ${endpointId}`, timeoutMs: 20_000 });
  }

  async function newOrganization() {
    return organizationWithMastodon(ctx, simulator.origin, simulator.addAccount(`user${Date.now()}`));
  }

  // As the workers' outbox: each delivery's job queued when it is written.
  const outbox = () => new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date(), jobs: deliveryJobs });

  it('delivers post.published once a post is published, signed so a receiver can check it', async () => {
    const org = await newOrganization();
    const target = await receiver();
    const endpointId = await subscribe(org.apiKey, target, ['post.published']);
    const postId = await publishNow(stack.baseUrl, org, ['hello to the webhooks']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');

    const [delivery] = await settledLog(org.apiKey, endpointId);
    expect(delivery).toMatchObject({ event: 'post.published', status: 'delivered', nextAttemptAt: null });
    expect(delivery?.attempts).toEqual([
      { at: expect.any(String) as string, statusCode: 200, durationMs: expect.any(Number) as number, error: null,
        response: 'thanks' },
    ]);
    expect(target.received).toHaveLength(1);
    const [request] = target.received;
    expect(request?.signatureValid).toBe(true);
    const header = request?.headers['sps-signature'] as string;
    expect(verifySignature(header, `${request?.body ?? ''} `, target.secret)).toBe(false);
    // The documented few lines accept it too, and refuse it tampered, under another secret, or replayed late.
    const isFromSps = await readmeVerifier();
    expect(isFromSps(header, request?.body ?? '', target.secret)).toBe(true);
    expect(isFromSps(header, `${request?.body ?? ''} `, target.secret)).toBe(false);
    expect(isFromSps(header, request?.body ?? '', `${target.secret}x`)).toBe(false);
    // Signed here, correctly, at other times: accepted within 5 minutes, refused past them.
    const signedAt = (secondsAgo: number) => {
      const t = Math.floor(Date.now() / 1000) - secondsAgo;
      const v1 = createHmac('sha256', target.secret).update(`${t}.${request?.body ?? ''}`).digest('hex');
      return `t=${t},v1=${v1}`;
    };
    expect(isFromSps(signedAt(240), request?.body ?? '', target.secret)).toBe(true);
    expect(isFromSps(signedAt(320), request?.body ?? '', target.secret)).toBe(false);
    expect(Math.abs((request?.timestamp ?? 0) - Date.now() / 1000)).toBeLessThan(300);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'sps-event': 'post.published',
      'sps-delivery': delivery?.id,
      'user-agent': expect.stringMatching(/^SPS-Webhooks\//) as string,
    });
    expect(JSON.parse(request?.body ?? '')).toEqual({
      id: delivery?.eventId,
      type: 'post.published',
      createdAt: expect.any(String) as string,
      organizationId: org.organizationId,
      data: {
        postId, group: root?.group, channelId: org.channelId, provider: 'mastodon',
        releaseURL: root?.releaseURL, publishedAt: root?.publishedAt?.toISOString(),
      },
    });
  });

  it('retries a receiver that answers 500 on the schedule; the log shows both attempts', async () => {
    const org = await newOrganization();
    const target = await receiver();
    target.answers = [500];
    const endpointId = await subscribe(org.apiKey, target, ['channel.disconnected']);
    await outbox().emit(org.organizationId, 'channel.disconnected', {
      channelId: org.channelId, provider: 'mastodon', name: 'Ours', reason: 'the token was revoked',
    });
    const [delivery] = await settledLog(org.apiKey, endpointId);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [500, expect.stringContaining('answered HTTP 500') as string], [200, null],
    ]);
    for (const attempt of delivery?.attempts ?? []) expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    const [first, second] = (delivery?.attempts ?? []).map((attempt) => Date.parse(attempt.at));
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(retryWaitMs);
    // The same delivery both times: one id to deduplicate on, one body, a valid signature each time.
    const requests = target.forDelivery(delivery?.id ?? '');
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    expect(requests.every((request) => request.signatureValid)).toBe(true);
  });

  it('fails a delivery whose receiver never succeeds, after the last attempt of the schedule', async () => {
    const org = await newOrganization();
    const target = await receiver();
    target.answers = [503, 500, 502, 500];
    const endpointId = await subscribe(org.apiKey, target, ['post.failed']);
    await outbox().emit(org.organizationId, 'post.failed', {
      postId: org.channelId, group: 'g', channelId: org.channelId, provider: 'mastodon', error: 'refused',
      category: 'permanent', attempts: [],
    });
    const [delivery] = await settledLog(org.apiKey, endpointId);
    expect(delivery).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(delivery?.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 500, 502]);
    // Nothing follows the last attempt.
    await new Promise((resolve) => setTimeout(resolve, retryWaitMs * 2));
    expect(target.received).toHaveLength(3);
  });

  it('counts a receiver slower than WEBHOOK_TIMEOUT_MS as an attempt without a status code', async () => {
    const org = await newOrganization();
    const target = await receiver();
    target.delayMs = 3_000;
    const endpointId = await subscribe(org.apiKey, target, ['media.failed']);
    await outbox().emit(org.organizationId, 'media.failed', {
      id: org.channelId, name: 'x.png', originalName: null, path: null, thumbnail: null, alt: null, mimeType: null,
      size: null, status: 'failed',
    });
    const first = await waitFor(async () => {
      const [delivery] = await deliveryLog(org.apiKey, endpointId);
      return delivery?.attempts[0];
    }, { what: 'the first attempt', timeoutMs: 10_000 });
    const timedOut = expect.stringMatching(/no answer .* within 1500 ms/) as string;
    expect(first).toMatchObject({ statusCode: null, error: timedOut });
    expect(first.durationMs).toBeGreaterThanOrEqual(1_400);
  });

  it('signs with the new secret once it is rotated; the old one no longer verifies', async () => {
    const org = await newOrganization();
    const target = await receiver();
    const endpointId = await subscribe(org.apiKey, target, ['channel.disconnected']);
    const data = { channelId: org.channelId, provider: 'mastodon', name: 'Ours', reason: 'revoked' };
    await outbox().emit(org.organizationId, 'channel.disconnected', data);
    await settledLog(org.apiKey, endpointId, 1);
    const oldSecret = target.secret;
    const rotatePath = `${prefix}/webhooks/${endpointId}/secret`;
    const rotated = await api(stack.baseUrl, org.apiKey, rotatePath, { method: 'POST' });
    target.secret = (rotated.body as { secret: string }).secret;
    await outbox().emit(org.organizationId, 'channel.disconnected', data);
    await settledLog(org.apiKey, endpointId, 2);
    const [before, after] = target.received;
    expect(before?.signatureValid).toBe(true);
    expect(after?.signatureValid).toBe(true);
    const header = (request: typeof after) => request?.headers['sps-signature'] as string;
    expect(verifySignature(header(after), after?.body ?? '', oldSecret)).toBe(false);
    expect(verifySignature(header(before), before?.body ?? '', target.secret)).toBe(false);
  });

  it('resends a delivery as a new one with the same body, and logs both', async () => {
    const org = await newOrganization();
    const target = await receiver();
    const endpointId = await subscribe(org.apiKey, target, ['channel.disconnected']);
    await outbox().emit(org.organizationId, 'channel.disconnected', {
      channelId: org.channelId, provider: 'mastodon', name: 'Ours', reason: 'revoked',
    });
    const [original] = await settledLog(org.apiKey, endpointId, 1);
    const resendPath = `${prefix}/webhooks/deliveries/${original?.id ?? ''}/resend`;
    const resent = await api(stack.baseUrl, org.apiKey, resendPath, { method: 'POST' });
    expect(resent.status).toBe(202);
    const log = await settledLog(org.apiKey, endpointId, 2);
    expect(log.map((entry) => [entry.status, entry.resentFrom, entry.eventId])).toEqual([
      ['delivered', original?.id, original?.eventId], ['delivered', null, original?.eventId],
    ]);
    const [first, again] = target.received;
    expect(again?.headers['sps-delivery']).toBe(log[0]?.id);
    expect(again?.body).toBe(first?.body);
    expect(again?.signatureValid).toBe(true);
  });

  it('tells post.failed and channel.disconnected (once) when the platform refuses the channel', async () => {
    const token = simulator.addAccount(`revoked${Date.now()}`);
    const org = await organizationWithMastodon(ctx, simulator.origin, token);
    const target = await receiver();
    const endpointId = await subscribe(org.apiKey, target, ['post.failed', 'channel.disconnected']);
    simulator.revoke(token);
    const postId = await publishNow(stack.baseUrl, org, ['this will not go out']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    const log = await settledLog(org.apiKey, endpointId, 2);
    expect(log.map((entry) => entry.event).sort()).toEqual(['channel.disconnected', 'post.failed']);
    const bodies = target.received.map((request) => JSON.parse(request.body) as { type: string; data: unknown });
    expect(bodies).toEqual(expect.arrayContaining([
      expect.objectContaining({
        type: 'post.failed',
        data: {
          postId, group: root?.group, channelId: org.channelId, provider: 'mastodon', error: root?.error,
          category: 'disconnected',
          attempts: [expect.objectContaining({ partId: postId, category: 'disconnected', message: root?.error })],
        },
      }),
      expect.objectContaining({
        type: 'channel.disconnected',
        data: expect.objectContaining({
          channelId: org.channelId, provider: 'mastodon', name: 'Our Mastodon',
        }) as object,
      }),
    ]));
  });

  it('tells media.ready once an upload is inspected', async () => {
    const org = await newOrganization();
    const target = await receiver();
    const endpointId = await subscribe(org.apiKey, target, ['media.ready']);
    const form = new FormData();
    form.append('file', new Blob([samplePng()]), 'red.png');
    const uploaded = await fetch(`${stack.baseUrl}${prefix}/upload`, {
      method: 'POST', body: form, headers: { Authorization: org.apiKey },
    });
    expect(uploaded.status).toBe(201);
    const media = await uploaded.json() as { id: string; path: string };
    await settledLog(org.apiKey, endpointId, 1);
    const [request] = target.received;
    expect(request?.headers['sps-event']).toBe('media.ready');
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      type: 'media.ready', data: { id: media.id, path: media.path, status: 'ready', width: 1, height: 1 },
    });
  });
});
