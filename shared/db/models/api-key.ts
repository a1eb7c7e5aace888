import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * A named API key of an organization (besides its original key, kept on the organization):
 * scopes, an optional expiry, and the last time it was used. Revoking sets `revokedAt`; the
 * record stays so the list of what existed can be audited.
 */
const apiKeySchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true, index: true },
    name: { type: String, required: true },
    scopes: { type: [String], required: true },
    /** HMAC of the key: the only form it is looked up by (the key is shown once, at creation). */
    keyDigest: { type: String, required: true, unique: true },
    /** The key's first characters, so a user can tell keys apart without the secret. */
    keyStart: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    /** Written at most once a minute per key (api/caches/key-usage.ts). */
    lastUsedAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'api_keys' },
);

export type ApiKey = InferSchemaType<typeof apiKeySchema>;
export type ApiKeyModel = Model<ApiKey>;

export function apiKeyModel(connection: Connection): ApiKeyModel {
  return (connection.models.ApiKey as ApiKeyModel | undefined) ?? connection.model('ApiKey', apiKeySchema);
}
