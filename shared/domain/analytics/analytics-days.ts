import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { AnalyticsCounter } from '../../platforms/kit/platform-adapter.ts';

/** The UTC calendar day of an instant, as the buckets are keyed: `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC day `days` before `at`'s day. */
export function daysBefore(at: Date, days: number): string {
  return utcDay(new Date(at.getTime() - days * 86_400_000));
}

export interface Reading {
  organizationId: Types.ObjectId;
  channelId: Types.ObjectId;
  subject: 'channel' | 'post';
  subjectId: Types.ObjectId;
  counters: AnalyticsCounter[];
  at: Date;
}

/**
 * Stores a reading as its day's bucket: one document per subject and UTC day, replaced by later
 * readings the same day, so a day holds the last value the platform reported that day.
 */
export async function recordReading(db: Database, reading: Reading): Promise<void> {
  const { organizationId, channelId, subject, subjectId, counters, at } = reading;
  await db.analyticsDays.updateOne(
    { subjectId, day: utcDay(at) },
    { $set: { organizationId, channelId, subject, counters, fetchedAt: at } },
    { upsert: true },
  );
}

/** Removes days older than the retention (the maintenance job), for every subject at once. */
export async function deleteOldAnalytics(db: Database, now: Date, retentionDays: number): Promise<number> {
  const result = await db.analyticsDays.deleteMany({ day: { $lt: daysBefore(now, retentionDays) } });
  return result.deletedCount;
}
