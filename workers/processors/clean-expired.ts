import type { Job } from 'bullmq';
import type { Database } from '../../shared/db/database.ts';
import { deleteExpiredSessions } from '../../shared/domain/accounts/sessions.ts';
import { deleteExpiredConnectAttempts } from '../../shared/domain/channels/connect-attempts.ts';
import { deleteExpiredCodes } from '../../shared/domain/oauth/authorization.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

/** Removes expired authorization codes, sessions and connect attempts; run by a BullMQ job scheduler. */
export function cleanExpiredProcessor(deps: { db: Database; now: () => Date }, baseLogger: Logger) {
  return async (job: Job): Promise<{ codes: number; sessions: number; connectAttempts: number }> => {
    const now = deps.now();
    const result = {
      codes: await deleteExpiredCodes(deps.db, now),
      sessions: await deleteExpiredSessions(deps.db, now),
      connectAttempts: await deleteExpiredConnectAttempts(deps.db, now),
    };
    baseLogger.info({ event: LogEvent.jobCompleted, jobId: job.id, queue: job.queueName, ...result }, 'expired records removed');
    return result;
  };
}
