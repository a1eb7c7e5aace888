import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * An authorization code: single use, 10 minutes. Redeeming it inserts a grant carrying its digest
 * under a unique index (see exchangeCode); a user's revoke of the app deletes it.
 */
const oauthCodeSchema = new Schema(
  {
    codeDigest: { type: String, required: true, unique: true },
    appId: { type: Types.ObjectId, required: true },
    userId: { type: Types.ObjectId, required: true },
    organizationId: { type: Types.ObjectId, required: true },
    expiresAt: { type: Date, required: true, index: true },
    consumedAt: { type: Date, default: null },
    /** The redirect_uri the authorization request carried, if any: the token request must repeat it. */
    redirectUri: { type: String, default: null },
    /** PKCE (RFC 7636, S256): the app proves at the token endpoint that it sent this request. */
    codeChallenge: { type: String, default: null },
    /** The scope granted with this code, answered with its access token. */
    scope: { type: String, default: null },
    /** RFC 8707: the resource (an absolute URL, e.g. the /mcp endpoint) the token is to be used at; null: any. */
    resource: { type: String, default: null },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'oauth_codes' },
);
// A user's revoke and an app's deletion drop the codes of that app (and user).
oauthCodeSchema.index({ appId: 1, userId: 1 });

export type OAuthCode = InferSchemaType<typeof oauthCodeSchema>;
export type OAuthCodeModel = Model<OAuthCode>;

export function oauthCodeModel(connection: Connection): OAuthCodeModel {
  return (connection.models.OAuthCode as OAuthCodeModel | undefined) ?? connection.model('OAuthCode', oauthCodeSchema);
}
