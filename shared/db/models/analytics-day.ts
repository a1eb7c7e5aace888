import { Schema, Types, type Connection, type InferSchemaType, type Model } from 'mongoose';

const counterSchema = new Schema(
  { label: { type: String, required: true }, value: { type: Number, required: true } },
  { _id: false },
);

/**
 * The counters of one channel (or one of its posts) on one UTC day, as the platform last reported
 * them that day: the gatherer overwrites the day's reading, so a day holds its latest value.
 */
const analyticsDaySchema = new Schema(
  {
    organizationId: { type: Types.ObjectId, required: true },
    channelId: { type: Types.ObjectId, required: true },
    /** `channel` for the account's counters, `post` for one published post's. */
    subject: { type: String, enum: ['channel', 'post'], required: true },
    /** The channel's id for `channel`, the root post's id for `post`. */
    subjectId: { type: Types.ObjectId, required: true },
    /** UTC calendar day, `YYYY-MM-DD`. */
    day: { type: String, required: true },
    counters: { type: [counterSchema], default: [] },
    fetchedAt: { type: Date, required: true },
  },
  { collection: 'analytics_days' },
);
// One reading per subject and day; also the order the routes read a subject's days in.
analyticsDaySchema.index({ subjectId: 1, day: 1 }, { unique: true });
// Retention removes old days for every subject at once (no TTL indexes, ARCHITECTURE rule 7).
analyticsDaySchema.index({ day: 1 });

export type AnalyticsDay = InferSchemaType<typeof analyticsDaySchema>;
export type AnalyticsDayModel = Model<AnalyticsDay>;

export function analyticsDayModel(connection: Connection): AnalyticsDayModel {
  return (connection.models.AnalyticsDay as AnalyticsDayModel | undefined)
    ?? connection.model('AnalyticsDay', analyticsDaySchema);
}
