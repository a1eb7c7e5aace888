import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { daysBefore } from './analytics-days.ts';
import { analyticsSeries, type AnalyticsSeries } from './analytics-series.ts';

/**
 * Each channel's first counter series over the last `days` days, by channel id, read in one query
 * for the whole channel list. Channels with nothing stored are left out.
 */
export async function channelCharts(
  db: Database,
  channelIds: readonly string[],
  now: Date,
  days: number,
): Promise<Map<string, AnalyticsSeries>> {
  const stored = await db.analyticsDays
    .find({
      subject: 'channel',
      subjectId: { $in: channelIds.map((id) => new Types.ObjectId(id)) },
      day: { $gte: daysBefore(now, days) },
    })
    .sort({ subjectId: 1, day: 1 })
    .lean();
  const byChannel = new Map<string, { day: string; counters: { label: string; value: number }[] }[]>();
  for (const day of stored) {
    const id = day.subjectId.toString();
    byChannel.set(id, [...(byChannel.get(id) ?? []), { day: day.day, counters: day.counters }]);
  }
  const charts = new Map<string, AnalyticsSeries>();
  for (const [id, channelDays] of byChannel) {
    const [first] = analyticsSeries(channelDays);
    if (first !== undefined) charts.set(id, first);
  }
  return charts;
}
