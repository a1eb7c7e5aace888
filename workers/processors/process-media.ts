import { UnrecoverableError, type Job } from 'bullmq';
import { mediaView } from '../../shared/domain/media/media-view.ts';
import { processMedia, type MediaProcessingDeps } from '../../shared/domain/media/process-media.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { mediaJobPayload } from '../../shared/queue/queues.ts';

/** Fetches (upload-from-url) and inspects media; answers with the media as the api shows it. */
export function processMediaProcessor(deps: MediaProcessingDeps, baseLogger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const payload = mediaJobPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    log.info({ event: LogEvent.jobStarted, mediaId: payload.data.mediaId, kind: payload.data.kind }, 'processing media');
    const failures: Error[] = [];
    const media = await processMedia(deps, payload.data.mediaId, payload.data.kind, (error) => {
      failures.push(error);
    });
    if (media === null) return null;
    // The failure's causes only here: the media's stored error leaves out what the user must not read.
    const fields = { mediaId: payload.data.mediaId, status: media.status, reason: media.errorReason, err: failures[0] };
    log.info({ event: LogEvent.jobCompleted, ...fields }, 'media processed');
    return mediaView(media);
  };
}
