import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { WebhookDelivery, WebhookDeliveryStatus } from '../../db/models/webhook-delivery.ts';
import { asObjectId } from '../../db/object-id.ts';
import { notFound } from '../../errors.ts';
import type { Logger } from '../../logging/logger.ts';
import { queueWrittenAttempts, type WebhookDeliveryJobs } from './delivery-jobs.ts';
import { findOwnedEndpoint } from './webhook-endpoints.ts';

export type StoredDelivery = WebhookDelivery & { _id: Types.ObjectId };

export interface AttemptView {
  at: string;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
  /** The start of the receiver's answer, at most 500 characters. */
  response: string | null;
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  event: string;
  eventId: string;
  status: WebhookDeliveryStatus;
  /** When the next attempt is due; null once delivered or failed, or while an attempt runs. */
  nextAttemptAt: string | null;
  attempts: AttemptView[];
  resentFrom: string | null;
  createdAt: string;
}

/** The most a log page shows; the default when no limit is asked. */
export const deliveryLogLimits = { max: 100, default: 50 } as const;

export function deliveryView(delivery: StoredDelivery): DeliveryView {
  return {
    id: delivery._id.toString(),
    endpointId: delivery.endpointId.toString(),
    event: delivery.event,
    eventId: delivery.eventId,
    status: delivery.status,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt?.toISOString() ?? null : null,
    attempts: delivery.attempts.map((attempt) => ({
      at: attempt.at.toISOString(),
      statusCode: attempt.statusCode ?? null,
      durationMs: attempt.durationMs ?? null,
      error: attempt.error ?? null,
      response: attempt.responseExcerpt ?? null,
    })),
    resentFrom: delivery.resentFrom?.toString() ?? null,
    createdAt: delivery.createdAt.toISOString(),
  };
}

/** An endpoint's deliveries, newest first (an organization sees only its own endpoints'). */
export async function listDeliveries(
  db: Database,
  organizationId: string,
  endpointId: string,
  limit: number = deliveryLogLimits.default,
): Promise<DeliveryView[]> {
  const endpoint = await findOwnedEndpoint(db, organizationId, endpointId);
  const deliveries = await db.webhookDeliveries
    .find({ endpointId: endpoint._id, organizationId: endpoint.organizationId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(Math.min(Math.max(1, limit), deliveryLogLimits.max))
    .lean();
  return deliveries.map(deliveryView);
}

/**
 * Sends a delivery's body again as a new delivery, due at once: the log keeps the original with
 * its attempts, and the copy gets its own id (SPS-Delivery) while the event id stays the same.
 * The copy's attempt is queued after it is written; if that fails, the dispatcher queues it.
 */
export async function resendDelivery(
  deps: { db: Database; deliveryJobs: WebhookDeliveryJobs; logger: Logger },
  organizationId: string,
  deliveryId: string,
  now: Date,
): Promise<DeliveryView> {
  const { db } = deps;
  const id = asObjectId(deliveryId);
  const original = id === null
    ? null
    : await db.webhookDeliveries.findOne({ _id: id, organizationId: new Types.ObjectId(organizationId) }).lean();
  if (original === null) throw notFound(`webhook delivery ${JSON.stringify(deliveryId)}`);
  // The endpoint may have been deleted since (its deliveries go with it, but a resend can race that).
  await findOwnedEndpoint(db, organizationId, original.endpointId.toString());
  const copy = await db.webhookDeliveries.create({
    organizationId: original.organizationId,
    endpointId: original.endpointId,
    event: original.event,
    eventId: original.eventId,
    body: original.body,
    status: 'pending',
    attempt: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    attempts: [],
    resentFrom: original._id,
  });
  const attempt = { deliveryId: copy._id.toHexString(), attempt: 0, dueAt: now };
  await queueWrittenAttempts(deps.deliveryJobs, [attempt], deps.logger);
  return deliveryView(copy.toObject());
}
