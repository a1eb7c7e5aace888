import { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { afterFailedAttempt } from './retry-schedule.ts';
import { sendWebhook, type SendOutcome } from './send-webhook.ts';
import { signatureHeader, webhookHeaders } from './webhook-signature.ts';

export interface WebhookDeliveryDeps {
  db: Database;
  secrets: SecretBox;
  /** The deployment's connection policy: deliveries reach only the addresses it allows. */
  userHosts: ConnectionPolicy;
  now: () => Date;
}

export interface WebhookDeliverySettings {
  timeoutMs: number;
  /** Waits after each failed attempt (WEBHOOK_RETRY_SCHEDULE_MS). */
  retryScheduleMs: readonly number[];
  userAgent: string;
}

export type DeliveryOutcome =
  | { kind: 'skipped'; reason: string }
  | { kind: 'delivered'; statusCode: number; durationMs: number }
  | { kind: 'retrying'; send: SendOutcome; nextAttemptAt: Date }
  | { kind: 'failed'; send: SendOutcome };

/**
 * How long an attempt holds its delivery. Longer than any attempt can take, so only a worker that
 * stopped mid-attempt lets it run out; the dispatcher then counts the attempt as lost.
 */
export function webhookLeaseMs(timeoutMs: number): number {
  return timeoutMs + 60_000;
}

/** What the log says of an attempt whose worker stopped before recording it. */
export const lostAttemptError = 'no outcome was recorded: the worker sending it stopped';

/**
 * One attempt at a delivery: claims it at the attempt count the job was queued with (a job run
 * twice, or queued for a state that has moved on, claims nothing), signs the body with the
 * endpoint's current secret and time, POSTs it, and records the attempt with the next state:
 * delivered on a 2xx, otherwise pending until the schedule's next wait, or failed after the last.
 */
export async function deliverWebhook(
  deps: WebhookDeliveryDeps,
  settings: WebhookDeliverySettings,
  job: { deliveryId: string; attempt: number },
): Promise<DeliveryOutcome> {
  const { db } = deps;
  const deliveryId = new Types.ObjectId(job.deliveryId);
  const leaseUntil = new Date(deps.now().getTime() + webhookLeaseMs(settings.timeoutMs));
  const delivery = await db.webhookDeliveries.findOneAndUpdate(
    { _id: deliveryId, status: 'pending', attempt: job.attempt },
    { $set: { status: 'sending', leaseUntil }, $inc: { attempt: 1 } },
    { returnDocument: 'after' },
  ).lean();
  if (delivery === null) return { kind: 'skipped', reason: 'the delivery was taken, settled or removed' };
  const endpoint = await db.webhookEndpoints.findOne({
    _id: delivery.endpointId, organizationId: delivery.organizationId,
  }).lean();
  if (endpoint === null) {
    // Deleted after this delivery was written: its log went with it, and so does this delivery.
    await db.webhookDeliveries.deleteOne({ _id: deliveryId });
    return { kind: 'skipped', reason: 'the endpoint was deleted' };
  }

  const sentAt = deps.now();
  const send = await sendWebhook({
    url: endpoint.url,
    body: delivery.body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': settings.userAgent,
      [webhookHeaders.event]: delivery.event,
      [webhookHeaders.delivery]: delivery._id.toString(),
      [webhookHeaders.signature]: signatureHeader(deps.secrets.open(endpoint.secretSealed), delivery.body, sentAt),
    },
  }, { policy: deps.userHosts, timeoutMs: settings.timeoutMs });

  const delivered = send.error === null;
  const next = delivered
    ? { status: 'delivered' as const, nextAttemptAt: null }
    : afterFailedAttempt(delivery.attempt, settings.retryScheduleMs, deps.now());
  const attempt = {
    at: sentAt,
    statusCode: send.statusCode,
    durationMs: send.durationMs,
    error: send.error,
    responseExcerpt: send.responseExcerpt,
  };
  // Conditional on the claim: if the lease ran out meanwhile, the dispatcher already moved on.
  const recorded = await db.webhookDeliveries.updateOne(
    { _id: deliveryId, status: 'sending', attempt: delivery.attempt },
    {
      $set: { status: next.status, nextAttemptAt: next.nextAttemptAt, leaseUntil: null },
      $push: { attempts: attempt },
    },
  );
  if (recorded.matchedCount === 0) {
    return { kind: 'skipped', reason: 'the lease ran out before the outcome was saved' };
  }
  if (delivered) return { kind: 'delivered', statusCode: send.statusCode ?? 0, durationMs: send.durationMs };
  if (next.status === 'pending') return { kind: 'retrying', send, nextAttemptAt: next.nextAttemptAt };
  return { kind: 'failed', send };
}
