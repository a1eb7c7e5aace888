import type { Job } from 'bullmq';
import type { Database } from '../../shared/db/database.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import type { AdapterSet } from '../../shared/platforms/platforms.ts';
import type { AnalyticsGathering } from '../../shared/domain/analytics/analytics-gathering.ts';

/**
 * The repeatable job that asks for every channel's gathering: channels that publish to a platform
 * with analytics, are enabled and need no reconnecting. Each request is one job per channel (its
 * id is the channel's), so a slow run never piles up behind itself.
 */
export function scheduleAnalyticsProcessor(
  deps: { db: Database; adapters: AdapterSet; analytics: AnalyticsGathering },
  baseLogger: Logger,
) {
  return async (job: Job): Promise<{ requested: number }> => {
    const providers = [...deps.adapters.entries()]
      .filter(([, adapter]) => adapter.analytics !== undefined)
      .map(([identifier]) => identifier);
    const channels = await deps.db.channels
      .find({ provider: { $in: providers }, deletedAt: null, disabled: false, refreshNeeded: false })
      .select({ _id: 1 })
      .lean();
    for (const channel of channels) await deps.analytics.request(channel._id.toString());
    baseLogger.info(
      { event: LogEvent.jobCompleted, jobId: job.id, requested: channels.length },
      'analytics requested',
    );
    return { requested: channels.length };
  };
}
