import type { Job } from 'bullmq';
import type { Database } from '../../shared/db/database.ts';
import { deleteExpiredSessions } from '../../shared/domain/accounts/sessions.ts';
import { deleteExpiredConnectAttempts } from '../../shared/domain/channels/connect-attempts.ts';
import { deleteExpiredCodes } from '../../shared/domain/oauth/authorization.ts';
import { deleteOldAnalytics } from '../../shared/domain/analytics/analytics-days.ts';
import { deleteOldHistory, type RetentionDays } from '../../shared/domain/retention.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

/**
 * Removes expired authorization codes, sessions and connect attempts, and analytics days,
 * notifications and ended webhook deliveries past their retention; run by a BullMQ job scheduler.
 */
export function cleanExpiredProcessor(
  deps: { db: Database; now: () => Date; analyticsRetentionDays: number; retention: RetentionDays },
  baseLogger: Logger,
) {
  return async (job: Job): Promise<Record<string, number>> => {
    const now = deps.now();
    const result = {
      codes: await deleteExpiredCodes(deps.db, now),
      sessions: await deleteExpiredSessions(deps.db, now),
      connectAttempts: await deleteExpiredConnectAttempts(deps.db, now),
      analyticsDays: await deleteOldAnalytics(deps.db, now, deps.analyticsRetentionDays),
      ...await deleteOldHistory(deps.db, now, deps.retention),
    };
    baseLogger.info({ event: LogEvent.jobCompleted, jobId: job.id, queue: job.queueName, ...result }, 'expired records removed');
    return result;
  };
}
