import type { Database } from '../../db/database.ts';
import { asObjectId } from '../../db/object-id.ts';
import { notFound } from '../../errors.ts';
import type { AdapterSet } from '../../platforms/platforms.ts';
import type { AnalyticsGathering } from './analytics-gathering.ts';
import { missingReleaseId } from '../posts/missing-release-id.ts';
import { daysBefore } from './analytics-days.ts';
import { analyticsSeries, type AnalyticsSeries } from './analytics-series.ts';

export interface ReadAnalyticsDeps {
  db: Database;
  adapters: AdapterSet;
  analytics: AnalyticsGathering;
  now: () => Date;
  /** Stored data older than this is answered with a gathering requested. */
  freshMs: number;
}

/** What the routes answer: the series, or the contract's `{missing: true}` for a post with no release id. */
export interface AnalyticsAnswer {
  body: AnalyticsSeries[] | { missing: true };
  /** When the newest stored reading was taken; null when nothing is stored yet. */
  fetchedAt: Date | null;
  /** Whether this request asked the workers for fresh data. */
  refreshing: boolean;
}

const none = (): AnalyticsAnswer => ({ body: [], fetchedAt: null, refreshing: false });

/**
 * Answers from what is stored, at once: `days` days back up to today. When the stored data is
 * older than the freshness limit (or there is none), a gathering of the channel is requested; the
 * answer still carries what there is, and when it was read.
 */
async function answerFromStore(
  deps: ReadAnalyticsDeps,
  channel: { _id: { toString(): string }; refreshNeeded: boolean },
  subjectId: string,
  days: number,
): Promise<AnalyticsAnswer> {
  const stored = await deps.db.analyticsDays
    .find({ subjectId, day: { $gte: daysBefore(deps.now(), days) } })
    .sort({ day: 1 })
    .lean();
  const fetchedAt = stored.reduce<Date | null>(
    (newest, day) => (newest === null || day.fetchedAt > newest ? day.fetchedAt : newest),
    null,
  );
  const stale = fetchedAt === null || deps.now().getTime() - fetchedAt.getTime() > deps.freshMs;
  // A channel that must be reconnected cannot be read: asking again would only fail again.
  const refreshing = stale && !channel.refreshNeeded;
  if (refreshing) await deps.analytics.request(channel._id.toString());
  const body = analyticsSeries(stored.map(({ day, counters }) => ({ day, counters })));
  return { body, fetchedAt, refreshing };
}

export async function channelAnalytics(
  deps: ReadAnalyticsDeps,
  organizationId: string,
  channelId: string,
  days: number,
): Promise<AnalyticsAnswer> {
  const id = asObjectId(channelId);
  const channel = id === null
    ? null
    : await deps.db.channels.findOne({ _id: id, organizationId, deletedAt: null }).lean();
  if (channel === null) throw notFound(`channel ${channelId}`);
  if (deps.adapters.get(channel.provider)?.analytics === undefined) return none();
  return answerFromStore(deps, channel, channelId, days);
}

export async function postAnalytics(
  deps: ReadAnalyticsDeps,
  organizationId: string,
  postId: string,
  days: number,
): Promise<AnalyticsAnswer> {
  const id = asObjectId(postId);
  const post = id === null ? null : await deps.db.posts.findOne({ _id: id, organizationId, deletedAt: null }).lean();
  if (post === null) throw notFound(`post ${postId}`);
  // The counters belong to the thread's first part, the one the platform item is.
  const root = post.rootPostId === null ? post : await deps.db.posts.findById(post.rootPostId).lean();
  if (root === null) throw notFound(`post ${postId}`);
  if (root.releaseId === missingReleaseId) return { body: { missing: true }, fetchedAt: null, refreshing: false };
  const channel = await deps.db.channels.findOne({ _id: root.channelId, deletedAt: null }).lean();
  if (channel === null || root.releaseId === null) return none();
  if (deps.adapters.get(channel.provider)?.analytics === undefined) return none();
  return answerFromStore(deps, channel, root._id.toString(), days);
}
