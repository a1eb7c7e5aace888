import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * pending: waiting for `nextAttemptAt`; sending: a worker holds it until `leaseUntil`;
 * delivered: the receiver answered 2xx; failed: every attempt of the schedule failed.
 */
export const webhookDeliveryStatuses = ['pending', 'sending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];

/** One try at a delivery, as the log shows it. */
const attemptSchema = new Schema(
  {
    at: { type: Date, required: true },
    /** The receiver's HTTP status; null when none came (refused address, timeout, network). */
    statusCode: { type: Number, default: null },
    /** Null for an attempt whose worker stopped before it could time it. */
    durationMs: { type: Number, default: null },
    error: { type: String, default: null },
    /** The start of the receiver's answer (at most 500 characters), for the log; the rest is not kept. */
    responseExcerpt: { type: String, default: null },
  },
  { _id: false },
);

/**
 * One event to one endpoint: the outbox record emitting writes, the webhook workers send and
 * retry, and the delivery log shows. `body` is the exact text signed and sent on every attempt.
 */
const webhookDeliverySchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    endpointId: { type: Types.ObjectId, required: true },
    event: { type: String, required: true },
    /** The event's id, also inside `body`: every endpoint and every resend of one event share it. */
    eventId: { type: String, required: true },
    body: { type: String, required: true },
    status: { type: String, enum: webhookDeliveryStatuses, required: true },
    /** Attempts started so far; a job claims the delivery only at the count it was added with. */
    attempt: { type: Number, required: true, min: 0 },
    nextAttemptAt: { type: Date, default: null },
    leaseUntil: { type: Date, default: null },
    attempts: { type: [attemptSchema], default: [] },
    /** The delivery this one resends, for the log. */
    resentFrom: { type: Types.ObjectId, default: null },
  },
  { timestamps: true, collection: 'webhook_deliveries' },
);
// The dispatcher: equality on status bounds FerretDB's read to the deliveries not settled yet.
webhookDeliverySchema.index({ status: 1, nextAttemptAt: 1 });
webhookDeliverySchema.index({ status: 1, leaseUntil: 1 });
// An endpoint's delivery log, newest first; deleting an endpoint removes its deliveries.
webhookDeliverySchema.index({ endpointId: 1, createdAt: -1, _id: -1 });

export type WebhookDelivery = InferSchemaType<typeof webhookDeliverySchema>;
export type WebhookDeliveryModel = Model<WebhookDelivery>;

export function webhookDeliveryModel(connection: Connection): WebhookDeliveryModel {
  const existing = connection.models.WebhookDelivery as WebhookDeliveryModel | undefined;
  return existing ?? connection.model('WebhookDelivery', webhookDeliverySchema);
}
