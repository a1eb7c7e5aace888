import { UnrecoverableError, type Job } from 'bullmq';
import { runPlatformCall, type PlatformCallDeps } from '../../shared/domain/channels/run-platform-call.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { platformCallPayload } from '../../shared/queue/queues.ts';

/** Answers the api's request/response platform calls; the api waits, so there is one attempt only. */
export function platformCallProcessor(deps: PlatformCallDeps, baseLogger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const payload = platformCallPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    log.info({ event: LogEvent.jobStarted, kind: payload.data.kind, channelId: payload.data.channelId }, 'platform call');
    try {
      const result = await runPlatformCall(deps, payload.data);
      log.info({ event: LogEvent.jobCompleted }, 'platform call answered');
      return result;
    } catch (error) {
      log.warn({ event: LogEvent.jobFailed, err: error }, 'platform call failed');
      throw error;
    }
  };
}
