import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * A user's approval of an app for one organization, holding the access token it was issued
 * (`pos_...`, stored as a digest). Tokens do not expire; revoking sets `revokedAt`. A token is
 * live only while `revokedAt` is null and its app still exists (shared/domain/oauth/grants.ts).
 */
const oauthGrantSchema = new Schema(
  {
    tokenDigest: { type: String, required: true, unique: true },
    appId: { type: Types.ObjectId, required: true, index: true },
    userId: { type: Types.ObjectId, required: true, index: true },
    organizationId: { type: Types.ObjectId, required: true },
    /**
     * Digest of the code this grant was exchanged from. Unique, so a code can make only one
     * grant: the insert is the atomic step of redeeming a code (see exchangeCode). Also how a
     * code presented again finds the token to revoke, after the sweep removed the code.
     */
    codeDigest: { type: String, required: true, unique: true },
    revokedAt: { type: Date, default: null },
    /** The scope granted (shared/domain/oauth/scope.ts); null on grants from before scopes: every scope. */
    scope: { type: String, default: null },
    /**
     * RFC 8707: the resource the token was issued for (its audience), from the authorization
     * request. A resource server bound to one (/mcp) refuses tokens for another; null: none named.
     */
    resource: { type: String, default: null },
  },
  { timestamps: true, collection: 'oauth_grants' },
);

export type OAuthGrant = InferSchemaType<typeof oauthGrantSchema>;
export type OAuthGrantModel = Model<OAuthGrant>;

export function oauthGrantModel(connection: Connection): OAuthGrantModel {
  return (connection.models.OAuthGrant as OAuthGrantModel | undefined) ?? connection.model('OAuthGrant', oauthGrantSchema);
}
