import type { Job } from 'bullmq';
import {
  refreshExpiringTokens, type TokenSweepDeps, type TokenSweepSettings,
} from '../../shared/domain/channels/refresh-expiring-tokens.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

/** Renews the access tokens about to expire; run by a BullMQ job scheduler on the maintenance queue. */
export function refreshTokensProcessor(deps: TokenSweepDeps, settings: TokenSweepSettings, baseLogger: Logger) {
  return async (job: Job): Promise<{ refreshed: number; errors: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const result = await refreshExpiringTokens(deps, settings);
    for (const { channelId, error } of result.errors) {
      log.warn({ event: LogEvent.tokenSweep, channelId, err: error }, 'could not renew a channel token');
    }
    const summary = { refreshed: result.refreshed.length, errors: result.errors.length };
    log.info({ event: LogEvent.tokenSweep, ...summary }, 'token sweep done');
    return summary;
  };
}
