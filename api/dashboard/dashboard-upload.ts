import { multipartFile } from '../public/uploads/multipart-file.ts';
import { drainRefusedUpload } from '../public/uploads/refused-upload-drain.ts';
import { recordUploadedMedia, streamIntoStorage } from '../../shared/domain/media/store-media.ts';
import type { MediaView, StoredMedia } from '../../shared/domain/media/media-view.ts';
import { DomainError } from '../../shared/errors.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { describeBytes } from '../../shared/media/media-types.ts';
import type { ComposerDeps } from './compose/composer-deps.ts';
import { words } from './i18n/translate.ts';
import type { DashboardRouterContext } from './state.ts';

/** Multipart framing around the file: boundaries and part headers (as the API's upload route allows). */
const multipartOverheadBytes = 64 * 1024;

/** The file's bytes into storage, as POST /upload stores them; a refused body is drained so its answer is read. */
async function storeUpload(ctx: DashboardRouterContext, deps: ComposerDeps, maxBytes: number) {
  try {
    if (ctx.is('multipart') === false) {
      throw new DomainError('unsupported_media_type', words(ctx)('media.uploadNotMultipart'));
    }
    if (ctx.request.length > maxBytes + multipartOverheadBytes) {
      throw new DomainError('payload_too_large', words(ctx)('media.uploadTooLarge', { size: describeBytes(maxBytes) }));
    }
    const file = await multipartFile(ctx.req, 'file', maxBytes);
    return { stored: await streamIntoStorage(deps.storage, file.stream, deps.mediaLimits), filename: file.filename };
  } catch (error) {
    if (error instanceof DomainError && error.code === 'upload_interrupted') {
      ctx.state.log.warn({ event: LogEvent.uploadInterrupted, declaredBytes: ctx.request.length }, error.message);
    } else {
      drainRefusedUpload(ctx.req, ctx.res, ctx.state.log);
    }
    throw error;
  }
}

/** An upload stored, recorded and inspected; `finished` false when the media worker took longer than the wait. */
export interface InspectedUpload {
  media: StoredMedia;
  finished: boolean;
}

/**
 * What the composer's and the media library's uploads share: the file stored, recorded and
 * inspected by the code of the API's POST /upload, a file the worker cannot read refused.
 */
export async function uploadAndInspect(
  ctx: DashboardRouterContext,
  deps: ComposerDeps,
  organizationId: string,
): Promise<InspectedUpload> {
  const maxBytes = Math.max(deps.mediaLimits.maxImageBytes, deps.mediaLimits.maxVideoBytes);
  const { stored, filename } = await storeUpload(ctx, deps, maxBytes);
  const media = await recordUploadedMedia(deps.db, organizationId, stored, filename);
  const job = { organizationId, mediaId: media._id.toHexString(), kind: 'inspect' } as const;
  const outcome = await deps.mediaQueue.processAndWait(job, deps.mediaWaitMs);
  const inspected = outcome.finished ? (outcome.result as MediaView) : null;
  if (inspected?.status === 'failed') {
    // The worker's own reason stays as it wrote it; only our fallback is in the reader's words.
    throw new DomainError('unreadable_media', inspected.error ?? words(ctx)('media.uploadUnreadable'));
  }
  return { media, finished: outcome.finished };
}
