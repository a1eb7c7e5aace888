import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * One organization's attempt to connect a channel, between two steps it cannot hold in memory:
 * `authorize` from the authorization URL to the platform's callback (keyed by the OAuth state),
 * `pick` from the callback to the user's choice of page, board or channel, `credentials` from
 * the form link an API client was given (GET /social/:provider) to the form sent through it.
 * Single use and 10 minutes long; only the digest of its key is stored, so a database read
 * cannot replay it.
 */
const connectAttemptSchema = new Schema(
  {
    keyDigest: { type: String, required: true, unique: true },
    phase: { type: String, required: true, enum: ['authorize', 'pick', 'credentials'] },
    organizationId: { type: Types.ObjectId, required: true },
    provider: { type: String, required: true },
    /** The channel `?refresh=` reconnects in place; null for a new channel. */
    refreshChannelId: { type: String, default: null },
    customer: { type: String, default: null },
    /** The user's server (Mastodon), whose registered client runs the exchange. */
    serverUrl: { type: String, default: null },
    redirectUri: { type: String, default: null },
    /** PKCE verifier, sealed: with the code it would redeem the authorization. */
    codeVerifierSealed: { type: String, default: null },
    /** The accounts to pick from with their tokens, sealed as one JSON document. */
    accountsSealed: { type: String, default: null },
    expiresAt: { type: Date, required: true, index: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'connect_attempts' },
);

export type ConnectAttempt = InferSchemaType<typeof connectAttemptSchema>;
export type ConnectAttemptModel = Model<ConnectAttempt>;

export function connectAttemptModel(connection: Connection): ConnectAttemptModel {
  const existing = connection.models.ConnectAttempt as ConnectAttemptModel | undefined;
  return existing ?? connection.model('ConnectAttempt', connectAttemptSchema);
}
