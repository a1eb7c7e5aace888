import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** A connected account on one platform ("integration" in the API, "channel" in the UI). */
const channelSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true, index: true },
    /** Platform identifier from the registry, e.g. `mastodon`. */
    provider: { type: String, required: true },
    name: { type: String, required: true, trim: true },
    picture: { type: String, default: null },
    /** The account's handle on the platform, shown to users. */
    profile: { type: String, default: null },
    /** Platform origin for federated platforms (Mastodon, Lemmy); null where the host is fixed. */
    instanceUrl: { type: String, default: null },
    /** Platform access token, AES-256-GCM sealed. */
    tokenSealed: { type: String, required: true },
    disabled: { type: Boolean, default: false },
    /** Set when the platform rejected the token: the user must reconnect. */
    refreshNeeded: { type: Boolean, default: false },
    customerId: { type: Types.ObjectId, default: null },
    /** Preferred posting times, minutes after midnight UTC, used by find-slot. */
    postingTimes: { type: [Number], default: () => [560, 850, 1140] },
    deletedAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'channels' },
);

export type Channel = InferSchemaType<typeof channelSchema>;
export type ChannelModel = Model<Channel>;

export function channelModel(connection: Connection): ChannelModel {
  return (connection.models.Channel as ChannelModel | undefined) ?? connection.model('Channel', channelSchema);
}
