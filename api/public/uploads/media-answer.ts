import { Reply } from '../route-definition.ts';
import { failedMediaCode, type MediaView } from '../../../shared/domain/media/media-view.ts';
import type { AwaitedJob } from '../../../shared/domain/awaited-job.ts';
import { DomainError } from '../../../shared/errors.ts';

/**
 * How routes that hand a media to a worker answer (upload, upload-from-url, generate-video):
 * 201 with the media once the worker is done, the failure's own code when it failed, and 202
 * with where to look while it is still working.
 */
export function mediaJobAnswer(outcome: AwaitedJob, mediaId: string, statusUrl: string): Reply {
  if (!outcome.finished) return new Reply(202, { id: mediaId, status: 'pending', statusUrl });
  const media = outcome.result as MediaView;
  if (media.status === 'failed') {
    const details = media.reason === undefined ? undefined : [{ path: 'reason', message: media.reason }];
    throw new DomainError(failedMediaCode(media.reason), media.error ?? 'the media could not be processed', details);
  }
  return new Reply(201, media);
}

/** Where a client follows a pending media: GET /media/:id. */
export function mediaStatusUrl(backendUrl: string, mediaId: string): string {
  return `${backendUrl}/public/v1/media/${mediaId}`;
}
