import { UnrecoverableError, type Job } from 'bullmq';
import { mediaView } from '../../shared/domain/media/media-view.ts';
import { GenerationFailure } from '../../shared/domain/video/generation-failure.ts';
import { failGeneration, generateVideo, type VideoGenerationDeps } from '../../shared/domain/video/generate-video.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { videoJobPayload } from '../../shared/queue/queues.ts';

/**
 * Generates a video (POST /generate-video); answers with the media as the api shows it. The job
 * has one attempt, so an unexpected error fails the media too (saying the server failed, the
 * details in the log) rather than leaving it pending for ever.
 */
export function generateVideoProcessor(deps: VideoGenerationDeps, baseLogger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const payload = videoJobPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    const { mediaId } = payload.data;
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName, mediaId });
    log.info({ event: LogEvent.jobStarted }, 'generating video');
    try {
      const media = await generateVideo(deps, mediaId, log);
      if (media === null) return null;
      log.info({ event: LogEvent.jobCompleted, status: media.status, reason: media.errorReason }, 'video generated');
      return mediaView(media);
    } catch (error) {
      log.error({ event: LogEvent.jobFailed, err: error }, 'video generation failed unexpectedly');
      const media = await deps.db.media.findById(mediaId).lean();
      const message = 'the server failed while making the video; try again';
      const failure = new GenerationFailure('video_generation_failed', message);
      if (media !== null) await failGeneration(deps, media, failure);
      throw error;
    }
  };
}
