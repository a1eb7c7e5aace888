import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** A third-party app an organization registered to act for users through OAuth 2.0. */
const oauthAppSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true, index: true },
    name: { type: String, required: true, trim: true },
    description: { type: String, default: null },
    pictureUrl: { type: String, default: null },
    redirectUrl: { type: String, required: true },
    /** Public: `pca_...`. */
    clientId: { type: String, required: true, unique: true },
    /** HMAC of the `pcs_...` secret; rotating replaces it, so the old secret stops at once. */
    clientSecretDigest: { type: String, required: true },
  },
  { timestamps: true, collection: 'oauth_apps' },
);

export type OAuthApp = InferSchemaType<typeof oauthAppSchema>;
export type OAuthAppModel = Model<OAuthApp>;

export function oauthAppModel(connection: Connection): OAuthAppModel {
  return (connection.models.OAuthApp as OAuthAppModel | undefined) ?? connection.model('OAuthApp', oauthAppSchema);
}
