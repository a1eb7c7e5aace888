import { z } from 'zod';
import { mediaSchema, pendingMediaSchema } from '../uploads/schema.ts';
import { mediaJobAnswer, mediaStatusUrl } from '../uploads/media-answer.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import { recordVideoRequest } from '../../../shared/domain/video/request-video.ts';
import { generateVideoBody, videoFunctionAnswer, videoFunctionBody } from './schema.ts';

/** The contract's video generation routes: the work is in shared/domain/video and the video worker. */
export function videoRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/generate-video', tag: 'Video Generation', scope: 'uploads', status: 201, idempotent: true,
      errors: [
        'validation_failed', 'unknown_video_type', 'provider_not_configured', 'unknown_media', 'provider_failed',
        'video_generation_failed', 'video_generation_unavailable', 'unreadable_media', 'media_inspection_unavailable',
      ],
      summary: 'Generate a video into the media library',
      description: 'Types: `slides` (text and optional library images become captioned, narrated scenes, made on '
        + 'this server) and `ai-slides` (an AI provider writes the script from a prompt, and where configured '
        + 'makes the images and the narration). MP4, H.264 Main, AAC, 30 fps, 1080x1920 or 1920x1080. Answers 201 '
        + 'with the media when the video worker finishes within the wait (VIDEO_WAIT_MS), else 202 with a status '
        + 'URL: GET /media/:id shows `progress` while it is pending. `Prefer: respond-async` answers 202 at once.',
      body: generateVideoBody,
      response: z.union([mediaSchema, pendingMediaSchema]),
      handle: async ({ organization, body, ctx }) => {
        const media = await recordVideoRequest({ db: deps.db, catalog: deps.videoCatalog }, organization.id, body);
        const mediaId = media._id.toString();
        const job = { organizationId: organization.id, mediaId };
        const statusUrl = mediaStatusUrl(deps.backendUrl, mediaId);
        // RFC 7240: a client that follows the progress itself (the CLI) asks not to be kept waiting.
        if (/\brespond-async\b/i.test(ctx.get('prefer'))) {
          await deps.videoQueue.add(job);
          return mediaJobAnswer({ finished: false }, mediaId, statusUrl);
        }
        return mediaJobAnswer(await deps.videoQueue.generateAndWait(job, deps.videoWaitMs), mediaId, statusUrl);
      },
    }),
    defineRoute({
      method: 'post', path: '/video/function', tag: 'Video Generation', scope: 'uploads', status: 200,
      errors: ['validation_failed', 'unknown_video_type', 'provider_not_configured'],
      summary: 'Helper data for a video type: its voices or its caption styles',
      description: '`functionName` is `voices` (the narration voices `customParams.voice` takes) or `styles` '
        + '(the caption styles `customParams.style` takes); `identifier` is the video type.',
      body: videoFunctionBody,
      response: videoFunctionAnswer,
      handle: ({ body }) => Promise.resolve({ output: deps.videoCatalog.helper(body.identifier, body.functionName) }),
    }),
  ];
}
