import { Schema, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * The OAuth client SPS registered on a user's server (a Mastodon instance: `POST /api/v1/apps`),
 * kept per server and redirect URI so every organization on that server reuses it.
 */
const serverClientSchema = new Schema(
  {
    provider: { type: String, required: true },
    serverUrl: { type: String, required: true },
    redirectUri: { type: String, required: true },
    clientId: { type: String, required: true },
    clientSecretSealed: { type: String, default: null },
  },
  { timestamps: true, collection: 'server_clients' },
);
serverClientSchema.index({ provider: 1, serverUrl: 1, redirectUri: 1 }, { unique: true });

export type ServerClient = InferSchemaType<typeof serverClientSchema>;
export type ServerClientModel = Model<ServerClient>;

export function serverClientModel(connection: Connection): ServerClientModel {
  const existing = connection.models.ServerClient as ServerClientModel | undefined;
  return existing ?? connection.model('ServerClient', serverClientSchema);
}
