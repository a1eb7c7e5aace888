import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

/**
 * One event an organization was told of (post.published, channel.refreshed...), as GET /events
 * reads it: written by the same emit that writes its webhook deliveries, one row per event
 * whether or not an endpoint subscribed. `_id` is a fresh ObjectId taken when the event is
 * written, so ordering by it is the order of writing (to the second, then the writing process):
 * the feed's cursor.
 */
const eventSchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    /**
     * `evt_…`, as the webhook body carries it. Unique: an event emitted again for the same fact
     * (a publish job run twice) takes the same id and is refused, while its row keeps a fresh
     * `_id` so it still sorts as written.
     */
    eventId: { type: String, required: true, unique: true },
    type: { type: String, required: true },
    /** The event's JSON body, byte for byte what its webhook deliveries carry. */
    body: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'events' },
);
// The feed: equality on the organization, then a range on _id (docs/queries.md).
eventSchema.index({ organizationId: 1, _id: 1 });

export type StoredEvent = InferSchemaType<typeof eventSchema>;
export type EventModel = Model<StoredEvent>;

export function eventModel(connection: Connection): EventModel {
  return (connection.models.Event as EventModel | undefined) ?? connection.model('Event', eventSchema);
}
