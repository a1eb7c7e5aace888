import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type Reply, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { mediaView } from '../../../shared/domain/media/media-view.ts';
import { deleteUnusedMedia, listMedia, mediaUses } from '../../../shared/domain/media/media-library.ts';
import { findOwnedMedia, recordRemoteMedia, recordUploadedMedia, streamIntoStorage } from '../../../shared/domain/media/store-media.ts';
import { DomainError } from '../../../shared/errors.ts';
import { parseRemoteMediaUrl } from '../../../shared/domain/media/remote-media-url.ts';
import { LogEvent } from '../../../shared/logging/events.ts';
import { describeBytes } from '../../../shared/media/media-types.ts';
import { multipartFile } from './multipart-file.ts';
import { drainRefusedUpload } from './refused-upload-drain.ts';
import { mediaJobAnswer, mediaStatusUrl } from './media-answer.ts';
import {
  deletedMediaResponse, listMediaQuery, listMediaResponse, mediaSchema, pendingMediaSchema, uploadFromUrlBody,
} from './schema.ts';

/** Multipart framing around the file: boundaries and part headers. */
const multipartOverheadBytes = 64 * 1024;

export function uploadRoutes(deps: PublicApiDeps): RouteDefinition[] {
  /** 201 with the media once the worker is done, 202 with where to look while it is not. */
  async function processAndAnswer(organizationId: string, mediaId: string, kind: 'import' | 'inspect'): Promise<Reply> {
    const outcome = await deps.mediaQueue.processAndWait({ organizationId, mediaId, kind }, deps.mediaWaitMs);
    return mediaJobAnswer(outcome, mediaId, mediaStatusUrl(deps.backendUrl, mediaId));
  }

  return [
    defineRoute({
      method: 'post', path: '/upload', tag: 'Uploads', scope: 'uploads', status: 201, multipartFile: 'file',
      errors: [
        'validation_failed', 'unsupported_media_type', 'unsupported_file_type', 'payload_too_large',
        'unreadable_media', 'media_inspection_unavailable',
      ],
      summary: 'Upload an image or MP4 video (multipart/form-data, field "file")',
      description: 'The type is recognised from the content. Images up to 10 MB and videos up to 1 GB by default (MEDIA_MAX_IMAGE_BYTES, MEDIA_MAX_VIDEO_BYTES). Answers 202 with a status URL when inspection takes longer than the wait.',
      response: z.union([mediaSchema, pendingMediaSchema]),
      handle: async ({ organization, ctx }) => {
        const maxBytes = Math.max(deps.mediaLimits.maxImageBytes, deps.mediaLimits.maxVideoBytes);
        let stored;
        let filename;
        try {
          if (ctx.is('multipart') === false) {
            throw new DomainError('unsupported_media_type', 'send multipart/form-data with the file in field "file"');
          }
          if (ctx.request.length > maxBytes + multipartOverheadBytes) {
            const allowed = describeBytes(maxBytes);
            throw new DomainError('payload_too_large', `the upload is larger than the ${allowed} allowed for videos`);
          }
          const file = await multipartFile(ctx.req, 'file', maxBytes);
          filename = file.filename;
          stored = await streamIntoStorage(deps.storage, file.stream, deps.mediaLimits);
        } catch (error) {
          if (error instanceof DomainError && error.code === 'upload_interrupted') {
            ctx.state.log.warn({ event: LogEvent.uploadInterrupted, declaredBytes: ctx.request.length }, error.message);
          } else {
            // Refused while the body may still be arriving: read the rest (bounded) so the client sees why.
            drainRefusedUpload(ctx.req, ctx.res, ctx.state.log);
          }
          throw error;
        }
        const media = await recordUploadedMedia(deps.db, organization.id, stored, filename);
        return processAndAnswer(organization.id, media._id.toString(), 'inspect');
      },
    }),
    defineRoute({
      method: 'post', path: '/upload-from-url', tag: 'Uploads', scope: 'uploads', status: 201, idempotent: true,
      errors: ['validation_failed', 'fetch_failed', 'unreadable_media', 'media_inspection_unavailable'],
      summary: 'Have the service fetch a public https URL into the media library',
      description: 'The fetch runs in a worker. Answers 201 with the media when it finishes within the wait, else 202 with a status URL (GET /media/:id).',
      body: uploadFromUrlBody,
      response: z.union([mediaSchema, pendingMediaSchema]),
      handle: async ({ organization, body }) => {
        const media = await recordRemoteMedia(deps.db, organization.id, parseRemoteMediaUrl(body.url));
        return processAndAnswer(organization.id, media._id.toString(), 'import');
      },
    }),
    defineRoute({
      method: 'get', path: '/media', tag: 'Uploads', scope: 'uploads', status: 200, errors: ['validation_failed'],
      summary: 'The organization\'s media library, newest first, with the posts that use each',
      query: listMediaQuery,
      response: listMediaResponse,
      handle: async ({ organization, query }) => {
        const page = await listMedia(deps.db, organization.id, query);
        const uses = await mediaUses(deps.db, organization.id, page.media);
        const none = { scheduled: [], drafts: [], published: [] };
        const listed = page.media.map((media) => ({
          ...mediaView(media), usedBy: uses.get(media._id.toHexString()) ?? none,
        }));
        return { media: listed, cursor: page.cursor };
      },
    }),
    defineRoute({
      method: 'delete', path: '/media/:id', tag: 'Uploads', scope: 'uploads', status: 200,
      errors: ['not_found', 'media_in_use'],
      summary: 'Delete a media and its stored files, unless a scheduled post attaches it',
      description: '409 media_in_use names the scheduled posts that attach it: edit or delete them first. Drafts '
        + 'and published posts do not hold it (a draft is checked again when scheduled; platforms keep their copy).',
      params: idParams,
      response: deletedMediaResponse,
      handle: ({ organization, params }) => deleteUnusedMedia(deps, organization.id, params.id),
    }),
    defineRoute({
      method: 'get', path: '/media/:id', tag: 'Uploads', scope: 'uploads', status: 200, errors: ['not_found'],
      summary: 'A media record with its status: pending, ready, or failed with the error',
      params: idParams,
      response: mediaSchema,
      handle: async ({ organization, params }) => mediaView(await findOwnedMedia(deps.db, organization.id, params.id)),
    }),
  ];
}
