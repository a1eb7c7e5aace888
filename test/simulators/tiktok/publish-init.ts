import { z } from 'zod';
import { jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import { chunkPlanProblem, type ChunkPlan } from './chunk-rules.ts';
import { privacyLevels, type SimulatedCreator } from './creators.ts';
import { verifiedUrl } from './pulled-files.ts';
import type { PostMode, PublishRequest, TikTokPublishing } from './publishes.ts';
import { refusals, tiktokData } from './tiktok-answers.ts';

/**
 * The three ways to start a publish (oauth-majors.md 8.2): `video/init` (Direct Post),
 * `inbox/video/init` (upload to the creator's inbox, source_info only) and `content/init`
 * (photos, PULL_FROM_URL only), refused the way TikTok refuses: invalid_params for a body that
 * breaks the reference, privacy_level_option_mismatch for a level the creator does not offer,
 * the unaudited app's SELF_ONLY rule, the creator's daily cap and pending inbox shares, and
 * url_ownership_unverified for a URL outside the app's verified prefixes.
 */

const videoPostInfo = z.object({
  title: z.string().optional(),
  privacy_level: z.enum(privacyLevels),
  disable_duet: z.boolean().optional(),
  disable_comment: z.boolean().optional(),
  disable_stitch: z.boolean().optional(),
  video_cover_timestamp_ms: z.number().int().min(0).optional(),
  brand_content_toggle: z.boolean().optional(),
  brand_organic_toggle: z.boolean().optional(),
  is_aigc: z.boolean().optional(),
}).strict();

const fileUpload = z.object({
  source: z.literal('FILE_UPLOAD'),
  video_size: z.number().int(),
  chunk_size: z.number().int(),
  total_chunk_count: z.number().int(),
}).strict();
const videoUrl = z.object({ source: z.literal('PULL_FROM_URL'), video_url: z.url() }).strict();
const videoSource = z.discriminatedUnion('source', [fileUpload, videoUrl]);

const directVideo = z.object({ post_info: videoPostInfo, source_info: videoSource }).strict();
const inboxVideo = z.object({ source_info: videoSource }).strict();

const photoPostInfo = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  privacy_level: z.enum(privacyLevels).optional(),
  disable_comment: z.boolean().optional(),
  auto_add_music: z.boolean().optional(),
  brand_content_toggle: z.boolean().optional(),
  brand_organic_toggle: z.boolean().optional(),
}).strict();

const photoContent = z.object({
  post_info: photoPostInfo,
  source_info: z.object({
    source: z.literal('PULL_FROM_URL'),
    photo_images: z.array(z.url()).min(1).max(35),
    photo_cover_index: z.number().int().min(0),
  }).strict(),
  post_mode: z.enum(['DIRECT_POST', 'MEDIA_UPLOAD']),
  media_type: z.literal('PHOTO'),
}).strict();

/** What an init needs to know of the app and the creator. */
export interface InitContext {
  openId: string;
  creator: SimulatedCreator;
  publishing: TikTokPublishing;
  /** An unaudited app may post only SELF_ONLY. */
  unaudited: boolean;
  verifiedUrlPrefixes: readonly string[];
  uploadBase: string;
}

function invalid(error: z.ZodError): SimulatedAnswer {
  const first = error.issues[0];
  const path = first?.path.map(String).join('.') ?? '';
  return refusals.invalidParams(`Invalid parameter ${path}: ${first?.message ?? 'invalid'}`);
}

/** TikTok counts a caption in UTF-16 code units, which is what String.length counts. */
function tooLong(value: string | undefined, limit: number): boolean {
  return value !== undefined && value.length > limit;
}

/** The refusals every init shares: privacy, app audit, daily caps. */
function postingRefusal(context: InitContext, privacy: string | undefined, mode: PostMode): SimulatedAnswer | null {
  const { creator, publishing, openId } = context;
  if (mode === 'DIRECT_POST' && privacy !== undefined) {
    if (context.unaudited && privacy !== 'SELF_ONLY') return refusals.unaudited();
    if (!(creator.privacyLevelOptions as string[]).includes(privacy)) {
      return refusals.privacyMismatch(privacy, creator.privacyLevelOptions);
    }
  }
  if (publishing.postsToday(openId) >= creator.postsPerDay) return refusals.tooManyPosts();
  if (mode === 'MEDIA_UPLOAD' && publishing.pendingInbox(openId) >= 5) return refusals.tooManyPending();
  return null;
}

function started(context: InitContext, request: PublishRequest): SimulatedAnswer {
  const publish = context.publishing.create(request);
  const upload = publish.upload;
  if (upload === null) return tiktokData({ publish_id: publish.publishId });
  const uploadUrl = `${context.uploadBase}/video/?upload_id=${upload.uploadId}&upload_token=${upload.token}`;
  return tiktokData({ publish_id: publish.publishId, upload_url: uploadUrl });
}

function videoSourceRequest(
  source: z.infer<typeof videoSource>,
  context: InitContext,
): { plan: ChunkPlan | null; urls: string[] } | SimulatedAnswer {
  if (source.source === 'PULL_FROM_URL') {
    if (!verifiedUrl(source.video_url, context.verifiedUrlPrefixes)) return refusals.urlUnverified(source.video_url);
    return { plan: null, urls: [source.video_url] };
  }
  const plan = {
    videoSize: source.video_size, chunkSize: source.chunk_size, totalChunkCount: source.total_chunk_count,
  };
  const problem = chunkPlanProblem(plan);
  return problem === null ? { plan, urls: [] } : refusals.invalidParams(problem);
}

/** `POST /v2/post/publish/video/init/` and `/v2/post/publish/inbox/video/init/`. */
export function initVideo(request: SimulatedRequest, context: InitContext, mode: PostMode): SimulatedAnswer {
  const parsed = mode === 'DIRECT_POST'
    ? directVideo.safeParse(jsonBody(request))
    : inboxVideo.transform((body) => ({ ...body, post_info: null })).safeParse(jsonBody(request));
  if (!parsed.success) return invalid(parsed.error);
  const postInfo = parsed.data.post_info;
  if (tooLong(postInfo?.title, 2200)) return refusals.invalidParams('The title is longer than 2200 characters');
  const source = videoSourceRequest(parsed.data.source_info, context);
  if ('status' in source) return source;
  const refusal = postingRefusal(context, postInfo?.privacy_level, mode);
  if (refusal !== null) return refusal;
  return started(context, {
    openId: context.openId, media: 'video', mode, postInfo: postInfo ?? {}, upload: source.plan, urls: source.urls,
  });
}

/** `POST /v2/post/publish/content/init/` with media_type PHOTO. */
export function initPhotos(request: SimulatedRequest, context: InitContext): SimulatedAnswer {
  const parsed = photoContent.safeParse(jsonBody(request));
  if (!parsed.success) return invalid(parsed.error);
  const { post_info: postInfo, source_info: source, post_mode: mode } = parsed.data;
  if (tooLong(postInfo.title, 90)) return refusals.invalidParams('The title is longer than 90 characters');
  if (tooLong(postInfo.description, 4000)) {
    return refusals.invalidParams('The description is longer than 4000 characters');
  }
  if (mode === 'DIRECT_POST' && postInfo.privacy_level === undefined) {
    return refusals.invalidParams('privacy_level is required for DIRECT_POST');
  }
  if (source.photo_cover_index >= source.photo_images.length) {
    return refusals.invalidParams('photo_cover_index is outside photo_images');
  }
  const unverified = source.photo_images.find((url) => !verifiedUrl(url, context.verifiedUrlPrefixes));
  if (unverified !== undefined) return refusals.urlUnverified(unverified);
  const refusal = postingRefusal(context, postInfo.privacy_level, mode);
  if (refusal !== null) return refusal;
  return started(context, {
    openId: context.openId, media: 'photo', mode, postInfo, upload: null, urls: source.photo_images,
  });
}
