import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** Where an organization wants to be told about events, and the secret its deliveries are signed with. */
const webhookEndpointSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    url: { type: String, required: true },
    /** Event types (shared/domain/webhooks/webhook-events.ts) this endpoint receives. */
    events: { type: [String], required: true },
    /**
     * The signing secret, AES-256-GCM sealed: unlike an API key it is not only compared, SPS
     * signs every delivery with it, so it must be readable.
     */
    secretSealed: { type: String, required: true },
  },
  { timestamps: true, collection: 'webhook_endpoints' },
);
// The organization's endpoints: listing, the cap, and emitting an event (all equality on organizationId).
webhookEndpointSchema.index({ organizationId: 1, createdAt: 1 });

export type WebhookEndpoint = InferSchemaType<typeof webhookEndpointSchema>;
export type WebhookEndpointModel = Model<WebhookEndpoint>;

export function webhookEndpointModel(connection: Connection): WebhookEndpointModel {
  const existing = connection.models.WebhookEndpoint as WebhookEndpointModel | undefined;
  return existing ?? connection.model('WebhookEndpoint', webhookEndpointSchema);
}
