import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import {
  checkAgainstCreator, creatorInfoView, photoPostInfo, readCreatorInfo, videoPostInfo, type CreatorInfo,
} from './creator-info.ts';
import { tiktokSettings } from './definition.ts';
import {
  defaultStatusPolling, failReasonMessage, readStatus, settle, type PublishStatus, type StatusPolling,
} from './publish-status.ts';
import { provider, tiktokApi, type TikTokApi } from './tiktok-api.ts';
import { accountCounters, postCounters, recentPosts } from './tiktok-insights.ts';
import { chunkPlan, defaultChunkBytes, uploadChunks, videoTypes } from './video-upload.ts';

type Settings = z.output<typeof tiktokSettings>;
type PostMode = 'DIRECT_POST' | 'MEDIA_UPLOAD';

/** What a part's checkpoint holds, each saved before the step that depends on it. */
const saved = {
  /** TikTok's handle of the publish, saved the moment init answers, before any byte is sent. */
  publishId: 'publishId',
  /** 'video' or 'photo', the post mode, privacy level and username the publish was made with. */
  media: 'publishMedia',
  mode: 'publishMode',
  privacy: 'privacyLevel',
  username: 'username',
  /** When a photo init was sent and no answer has come yet (empty once it answered). */
  photoInitSentAt: 'photoInitSentAt',
} as const;

/** What the publish was made with: enough to finish it on a later attempt without reading anything else. */
interface PublishState {
  media: 'video' | 'photo';
  mode: PostMode;
  privacy: string;
  username: string;
}

export interface TikTokTuning {
  /** Bytes per chunk PUT: 5 to 64 MB. */
  chunkBytes: number;
  polling: StatusPolling;
}

export const defaultTikTokTuning: TikTokTuning = { chunkBytes: defaultChunkBytes, polling: defaultStatusPolling };

/** A chunk of up to 20 MB on a slow link takes longer than an API call. */
const minUploadTimeoutMs = 120_000;

const initAnswer = z.object({ publish_id: z.string().min(1), upload_url: z.string().optional() });
const profileAnswer = z.object({ user: z.object({ username: z.string().min(1) }) });
const noToolData = z.strictObject({});

const photoTypes = ['image/jpeg', 'image/webp'];

function permanent(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

function parseSettings(raw: Record<string, unknown>): Settings {
  const parsed = tiktokSettings.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw permanent(`the post's TikTok settings are invalid: ${issues}`);
}

/** TikTok posts one video, or 1 to 35 JPEG or WebP photos; nothing else reaches an init. */
function postKind(media: PublishMedia[]): 'video' | 'photo' {
  const [first] = media;
  if (first?.kind === 'video' && media.length === 1) {
    if (!videoTypes.includes(first.mimeType)) {
      throw permanent(`TikTok takes MP4, WebM or MOV videos, not ${first.mimeType}`);
    }
    return 'video';
  }
  if (media.length === 0 || media.length > 35 || media.some((item) => item.kind !== 'image')) {
    throw permanent('a TikTok post is 1 video or 1 to 35 photos');
  }
  const other = media.find((item) => !photoTypes.includes(item.mimeType));
  if (other !== undefined) throw permanent(`TikTok takes JPEG or WebP photos, not ${other.mimeType}`);
  return 'photo';
}

const profileUrl = (username: string) => `https://www.tiktok.com/@${encodeURIComponent(username)}`;

function stateOf(values: Readonly<Record<string, string>>): PublishState {
  return {
    media: values[saved.media] === 'photo' ? 'photo' : 'video',
    mode: values[saved.mode] === 'MEDIA_UPLOAD' ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
    privacy: values[saved.privacy] ?? '',
    username: values[saved.username] ?? '',
  };
}

const stateValues = (state: PublishState): Record<string, string> => ({
  [saved.media]: state.media,
  [saved.mode]: state.mode,
  [saved.privacy]: state.privacy,
  [saved.username]: state.username,
});

/**
 * Publishes to TikTok through the Content Posting API (shared/platforms/oauth-majors.md, section
 * 8). A post is one video or 1 to 35 photos, published at once (post_mode DIRECT_POST, the
 * default) or sent to the creator's TikTok inbox to finish in the app (MEDIA_UPLOAD):
 * - a direct post reads `creator_info` first and is held to it (creator-info.ts);
 * - a video goes by FILE_UPLOAD: `video/init` (or `inbox/video/init`, which takes no caption),
 *   then its chunks PUT to the upload URL TikTok answers (video-upload.ts);
 * - photos go by PULL_FROM_URL: `content/init` names each file's public URL and TikTok fetches
 *   them (POST /posts has checked TikTok can reach them: media-reach.ts);
 * - then `status/fetch` until TikTok is done (publish-status.ts).
 * The release id is the post id TikTok exposes once a public post passed moderation, with its
 * video URL; otherwise (SELF_ONLY and friends-only posts, inbox shares, a moderation that takes
 * longer than the wait) it is the publish_id, with the creator's profile URL, since TikTok gives
 * no other address for the post.
 *
 * Exactly once: TikTok has no idempotency key. The publish_id is saved in the part's checkpoint
 * the moment init answers, before any byte is sent; a retry with a saved publish_id reads its
 * status and carries on from there instead of starting again, except where TikTok cannot have
 * posted it: a video whose bytes never all arrived (status PROCESSING_UPLOAD with fewer
 * uploaded_bytes than the file), or a FAILED publish; then a new publish is made.
 * A lost answer to a video init is safe to repeat: TikTok publishes nothing until it has the
 * bytes, which go only to the upload URL in that lost answer. A photo init is not: TikTok
 * fetches the photos by itself. So its sending is marked in the checkpoint first, and a retry
 * that finds the mark without a publish_id sets the part aside as `unconfirmed`.
 */
export function createTikTokAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  tuning: TikTokTuning = defaultTikTokTuning,
): PlatformAdapter {
  const apiOf = (channel: ChannelCredentials): TikTokApi =>
    tiktokApi(app.apiUrl, channel.accessToken, options.timeoutMs);
  const uploadTimeoutMs = Math.max(options.timeoutMs, minUploadTimeoutMs);

  async function profileUsername(api: TikTokApi): Promise<string> {
    const call = { method: 'GET', path: '/v2/user/info/', query: { fields: 'username' } } as const;
    return (await api(call, profileAnswer, 'a profile')).user.username;
  }

  async function finish(
    api: TikTokApi,
    input: PublishInput,
    publishId: string,
    state: PublishState,
    first: PublishStatus | null,
  ): Promise<PublishResult> {
    const awaitPublicId = state.mode === 'DIRECT_POST' && state.privacy === 'PUBLIC_TO_EVERYONE';
    const settled = await settle(api, publishId, first, tuning.polling, awaitPublicId);
    if (settled.kind === 'failed') {
      // A FAILED publish never becomes a post: whoever tries this part again starts a new one.
      await input.checkpoint.save({ [saved.publishId]: '' });
      const message = failReasonMessage(settled.failReason);
      // TikTok's own trouble may pass; a refused file or a spam verdict would be refused again.
      const kind = settled.failReason === 'internal' ? 'retryable' : 'permanent';
      throw new PlatformError({ kind, provider, message });
    }
    const postId = settled.kind === 'posted' ? settled.postId : null;
    if (postId === null) return { releaseId: publishId, releaseURL: profileUrl(state.username) };
    // TikTok's photo posts live under /photo/, its videos under /video/.
    const path = state.media === 'photo' ? 'photo' : 'video';
    return { releaseId: postId, releaseURL: `${profileUrl(state.username)}/${path}/${postId}` };
  }

  /** Continues what an earlier attempt started; null when a new publish is to be made. */
  async function resume(api: TikTokApi, input: PublishInput): Promise<PublishResult | null> {
    const values = input.checkpoint.values;
    const publishId = values[saved.publishId] ?? '';
    if (publishId === '') {
      if ((values[saved.photoInitSentAt] ?? '') === '') return null;
      throw new PlatformError({
        kind: 'unconfirmed',
        provider,
        message: 'TikTok may have taken the photo post: its answer to the request was lost, and TikTok offers no way '
          + 'to find a post by its request; check the account\'s TikTok profile and inbox',
      });
    }
    const state = stateOf(values);
    const status = await readStatus(api, publishId);
    const size = input.media[0]?.size ?? 0;
    if (state.media === 'video' && status.status === 'PROCESSING_UPLOAD' && (status.uploaded_bytes ?? 0) < size) {
      // The bytes never all arrived, so TikTok cannot publish it; its upload URL lapses unused.
      await input.checkpoint.save({ [saved.publishId]: '' });
      return null;
    }
    return finish(api, input, publishId, state, status);
  }

  async function postVideo(
    api: TikTokApi,
    input: PublishInput,
    state: PublishState,
    postInfo: Record<string, unknown> | null,
  ): Promise<PublishResult> {
    const video = input.media[0];
    if (video === undefined) throw permanent('a TikTok post is 1 video or 1 to 35 photos');
    const plan = chunkPlan(video.size, tuning.chunkBytes);
    const source = { source_info: { source: 'FILE_UPLOAD', ...plan } };
    const call = postInfo === null
      ? { method: 'POST', path: '/v2/post/publish/inbox/video/init/', json: source } as const
      : { method: 'POST', path: '/v2/post/publish/video/init/', json: { post_info: postInfo, ...source } } as const;
    const started = await api(call, initAnswer, 'a publish');
    await input.checkpoint.save({ [saved.publishId]: started.publish_id, ...stateValues(state) });
    if (started.upload_url === undefined) throw permanent('TikTok answered a FILE_UPLOAD init without an upload URL');
    await uploadChunks(video, started.upload_url, plan, uploadTimeoutMs);
    return finish(api, input, started.publish_id, state, null);
  }

  async function postPhotos(
    api: TikTokApi,
    input: PublishInput,
    state: PublishState,
    postInfo: Record<string, unknown>,
  ): Promise<PublishResult> {
    const photos = input.media.map((media) => media.url);
    const json = {
      post_info: postInfo,
      source_info: { source: 'PULL_FROM_URL', photo_images: photos, photo_cover_index: 0 },
      post_mode: state.mode,
      media_type: 'PHOTO',
    };
    await input.checkpoint.save({ [saved.photoInitSentAt]: new Date().toISOString() });
    let publishId: string;
    try {
      const call = { method: 'POST', path: '/v2/post/publish/content/init/', json } as const;
      publishId = (await api(call, initAnswer, 'a publish')).publish_id;
    } catch (error) {
      // A refusal came back: TikTok made nothing, so a retry may send the request again.
      if (error instanceof PlatformError && error.httpStatus !== null) {
        await input.checkpoint.save({ [saved.photoInitSentAt]: '' });
      }
      throw error;
    }
    await input.checkpoint.save({ [saved.publishId]: publishId, [saved.photoInitSentAt]: '', ...stateValues(state) });
    return finish(api, input, publishId, state, null);
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = parseSettings(input.settings);
    const api = apiOf(input.channel);
    const resumed = await resume(api, input);
    if (resumed !== null) return resumed;
    const media = postKind(input.media);
    const mode = settings.post_mode ?? 'DIRECT_POST';
    // creator_info belongs to Direct Post (video.publish); an inbox upload reads the username from the profile.
    const creator: CreatorInfo | null = mode === 'DIRECT_POST' ? await readCreatorInfo(api) : null;
    if (creator !== null) checkAgainstCreator(creator, settings, input.media);
    const username = creator?.creator_username ?? await profileUsername(api);
    const state: PublishState = { media, mode, privacy: settings.privacy_level, username };
    if (media === 'photo') return postPhotos(api, input, state, photoPostInfo(creator, settings, input.content));
    return postVideo(api, input, state, creator === null ? null : videoPostInfo(creator, settings, input.content));
  }

  /** A post's counters by its release id; a publish_id first asks whether TikTok has exposed the post since. */
  async function releaseCounters(channel: ChannelCredentials, releaseId: string) {
    const api = apiOf(channel);
    if (/^\d+$/.test(releaseId)) return postCounters(api, releaseId);
    const status = await readStatus(api, releaseId);
    const postId = status.publicaly_available_post_id?.[0];
    return postId === undefined ? [] : postCounters(api, postId);
  }

  return {
    provider,
    publish,
    comment: () => Promise.reject(permanent('TikTok has no comments or replies through its API: send one part only')),
    recentContent: (channel) => recentPosts(apiOf(channel)),
    analytics: {
      account: (channel) => accountCounters(apiOf(channel)),
      post: releaseCounters,
    },
    tools: {
      async creatorInfo(channel, data) {
        const parsed = noToolData.safeParse(data);
        if (!parsed.success) throw permanent(`creatorInfo takes no data; remove ${Object.keys(data).join(', ')}`);
        return creatorInfoView(await readCreatorInfo(apiOf(channel)));
      },
    },
  };
}
