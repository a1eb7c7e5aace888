import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** A dashboard login. The cookie carries a random token; only its digest is stored. */
const sessionSchema = new Schema(
  {
    tokenDigest: { type: String, required: true, unique: true },
    userId: { type: Types.ObjectId, required: true },
    /** The organization the user is working in; switchable among the user's organizations. */
    organizationId: { type: Types.ObjectId, required: true },
    /** Expiry is checked in code and expired rows removed by the maintenance job (no TTL index). */
    expiresAt: { type: Date, required: true, index: true },
  },
  { timestamps: true, collection: 'sessions' },
);

export type Session = InferSchemaType<typeof sessionSchema>;
export type SessionModel = Model<Session>;

export function sessionModel(connection: Connection): SessionModel {
  return (connection.models.Session as SessionModel | undefined) ?? connection.model('Session', sessionSchema);
}
