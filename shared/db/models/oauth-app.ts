import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * A third-party app that acts for users through OAuth 2.0: registered by an organization in the
 * dashboard, or by the client itself through Dynamic Client Registration (RFC 7591, an MCP client).
 */
const oauthAppSchema = new Schema(
  {
    /**
     * The organization that registered the app in the dashboard and manages it there. Null for a
     * dynamically registered client: it belongs to no organization; each user who approves it
     * picks the organization their grant acts for, and sees it in their approved apps.
     */
    organizationId: { type: Types.ObjectId, default: null, index: true },
    name: { type: String, required: true, trim: true },
    description: { type: String, default: null },
    pictureUrl: { type: String, default: null },
    redirectUrl: { type: String, required: true },
    /** Public: `pca_...`. */
    clientId: { type: String, required: true, unique: true },
    /**
     * HMAC of the `pcs_...` secret; rotating replaces it, so the old secret stops at once. Null for
     * a public client (token_endpoint_auth_method "none"): it proves itself with PKCE instead.
     */
    clientSecretDigest: { type: String, default: null },
  },
  { timestamps: true, collection: 'oauth_apps' },
);

export type OAuthApp = InferSchemaType<typeof oauthAppSchema>;
export type OAuthAppModel = Model<OAuthApp>;

export function oauthAppModel(connection: Connection): OAuthAppModel {
  return (connection.models.OAuthApp as OAuthAppModel | undefined) ?? connection.model('OAuthApp', oauthAppSchema);
}
