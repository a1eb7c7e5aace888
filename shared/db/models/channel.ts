import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/** One weekly posting slot: ISO weekday (1 = Monday) and local `HH:MM`. */
const postingSlotSchema = new Schema(
  { weekday: { type: Number, required: true }, time: { type: String, required: true } },
  { _id: false },
);

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
    /**
     * The account's own text limit, read at connect where accounts of one platform differ (a
     * Mastodon instance's max_characters); null means the platform's limit.
     */
    textLimit: { type: Number, default: null },
    /** The platform's own id of the account; reconnecting matches on it to keep the channel id. */
    accountId: { type: String, default: null },
    /** Platform access token, AES-256-GCM sealed. */
    tokenSealed: { type: String, required: true },
    /** OAuth refresh token, sealed; null where the platform issues none (the token lives until revoked). */
    refreshTokenSealed: { type: String, default: null },
    /** When the access token stops working; null when the platform gave no lifetime. */
    tokenExpiresAt: { type: Date, default: null },
    /** When SPS last renewed the access token with the refresh token; null until the first renewal. */
    tokenRefreshedAt: { type: Date, default: null },
    /**
     * True while a refresh token is held and the channel is usable: the one equality the refresh
     * sweep bounds its read with on FerretDB (docs/queries.md).
     */
    refreshable: { type: Boolean, default: false },
    disabled: { type: Boolean, default: false },
    /** Set when the platform rejected the token: the user must reconnect. */
    refreshNeeded: { type: Boolean, default: false },
    customerId: { type: Types.ObjectId, default: null },
    /**
     * Before posting schedules: posting times, minutes after midnight UTC, every day. Still written
     * for new channels and read while `postingSlots` is unset (posting-schedule.ts
     * scheduleOfChannel); setting a schedule removes it.
     */
    postingTimes: { type: [Number], default: () => [560, 850, 1140] },
    /** IANA time zone the posting slots are wall-clock times in. */
    timeZone: { type: String, default: 'UTC' },
    /** Weekly posting slots (find-slot, the `queue` post type); unset until a schedule is set. */
    postingSlots: { type: [postingSlotSchema], default: undefined },
    deletedAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'channels' },
);
channelSchema.index({ refreshable: 1, tokenExpiresAt: 1 });
channelSchema.index({ organizationId: 1, provider: 1, accountId: 1 });

export type Channel = InferSchemaType<typeof channelSchema>;
export type ChannelModel = Model<Channel>;

export function channelModel(connection: Connection): ChannelModel {
  return (connection.models.Channel as ChannelModel | undefined) ?? connection.model('Channel', channelSchema);
}
