import { z } from 'zod';
import type { OAuthAuthority } from '../kit/oauth-authority.ts';
import { bearerToken, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import { page, unauthenticated, type SimulatedGoogleUser } from './google-simulator.ts';
import {
  badRequest, insufficientScopes, signupRequired, youtubeError,
} from './youtube-answers.ts';
import {
  newId, uploadsPlaylistOf, type InjectedFault, type UploadSession, type YoutubeStep, type YoutubeStore,
} from './youtube-store.ts';

/**
 * The YouTube Data API v3 routes SPS publishes with, on the Google simulator's origin:
 * - `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` opens an upload
 *   session (youtube-upload-server.ts serves its address) after checking the metadata as YouTube
 *   does (title 1-100 characters without < >, description at most 5,000 bytes, tags at
 *   most 500 characters, an assignable category, a known privacy) and the declared file;
 * - `POST /upload/youtube/v3/thumbnails/set?videoId=` takes a JPEG or PNG of at most 2 MB for a
 *   video of the channel, unless the channel may not set custom thumbnails;
 * - `GET /youtube/v3/videos?id=`, `GET /youtube/v3/playlists?mine=true` (paged),
 *   `GET|POST /youtube/v3/playlistItems` (the channel's uploads playlist included);
 * - `DELETE /youtube/v3/videos?id=` deletes the channel's own video.
 * Writes need youtube.upload (videos, thumbnails) or youtube.force-ssl (playlist items); a token
 * without one gets 403 insufficientPermissions. A Google account without a channel gets 401
 * youtubeSignupRequired. Facts: /work/shared/platforms/oauth-majors.md 7.
 */

const scopeBase = 'https://www.googleapis.com/auth/';
const privacies = ['public', 'unlisted', 'private'] as const;
/** Categories a video can be put in (videoCategories.list, assignable ones, region US). */
const categories = ['1', '2', '10', '15', '17', '19', '20', '22', '23', '24', '25', '26', '27', '28', '29'] as const;
const maxThumbnailBytes = 2 * 1024 * 1024;

export interface YoutubeRouteContext {
  store: YoutubeStore;
  authority: () => OAuthAuthority;
  /** Origin of the upload session server. */
  uploadOrigin: () => string;
}

interface Caller {
  request: SimulatedRequest;
  channelId: string;
  scopes: string[];
}

const notFound = (reason: string, message: string): SimulatedAnswer => youtubeError(404, reason, message);

function mayWrite(caller: Caller, scopes: string[]): boolean {
  return scopes.some((scope) => caller.scopes.includes(`${scopeBase}${scope}`));
}

/** What a test injected for this step, the work included when the answer is to be lost. */
function fault(context: YoutubeRouteContext, step: YoutubeStep, work: () => SimulatedAnswer): SimulatedAnswer {
  const injected: InjectedFault | undefined = context.store.takeFault(step);
  if (injected === undefined) return work();
  if (!('status' in injected)) return { ...work(), lose: true };
  return injected;
}

/** The video resource videos.insert takes, with YouTube's defaults; each field's refusal is below. */
const videoResource = z.object({
  snippet: z.object({
    title: z.string().refine((text) => text.trim() !== '' && Array.from(text).length <= 100 && !/[<>]/.test(text)),
    description: z.string().refine((text) => Buffer.byteLength(text) <= 5000).default(''),
    tags: z.array(z.string()).refine((tags) => tags.join(',').length <= 500).optional(),
    categoryId: z.enum(categories).default('22'),
    defaultLanguage: z.string().optional(),
  }),
  status: z.object({ privacyStatus: z.enum(privacies).default('public') }).loose()
    .default({ privacyStatus: 'public' }),
});

const refusals: Record<string, SimulatedAnswer> = {
  title: badRequest('invalidTitle', 'The request metadata specifies an invalid or empty video title.'),
  description: badRequest('invalidDescription', 'The request metadata specifies an invalid video description.'),
  tags: badRequest('invalidTags', 'The request metadata specifies invalid video keywords.'),
  categoryId: badRequest('invalidCategoryId', 'The <code>snippet.categoryId</code> property specifies an invalid '
    + 'category ID. Use the <code>videoCategories.list</code> method to retrieve supported categories.'),
};

/** The metadata as YouTube keeps it, or its refusal of the first field it does not take. */
function readMetadata(body: unknown): { metadata: UploadSession['metadata'] } | { refusal: SimulatedAnswer } {
  const parsed = videoResource.safeParse(body);
  if (parsed.success) return { metadata: parsed.data };
  const [where, field] = parsed.error.issues[0]?.path ?? [];
  const refusal = where === 'snippet' ? refusals[String(field ?? 'title')] : undefined;
  return { refusal: refusal ?? badRequest('invalidVideoMetadata', 'The request metadata is invalid.') };
}

function openSession(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  const { request } = caller;
  if (!mayWrite(caller, ['youtube.upload', 'youtube', 'youtube.force-ssl'])) return insufficientScopes;
  if (request.query.get('uploadType') !== 'resumable') {
    return badRequest('badRequest', 'This simulator serves uploadType=resumable only.');
  }
  const parts = (request.query.get('part') ?? '').split(',').filter((part) => part !== '');
  const body = jsonBody(request);
  if (!(request.headers['content-type'] ?? '').startsWith('application/json') || typeof body !== 'object'
    || body === null) {
    return badRequest('parseError', 'Parse Error');
  }
  const unnamed = Object.keys(body).filter((key) => !parts.includes(key));
  if (parts.length === 0 || unnamed.length > 0) {
    return badRequest('unexpectedPart', `The request body has parts not named in part: ${unnamed.join(', ')}`);
  }
  const length = Number(request.headers['x-upload-content-length'] ?? 'NaN');
  const type = String(request.headers['x-upload-content-type'] ?? '');
  if (!Number.isSafeInteger(length) || length <= 0) {
    return badRequest('badRequest', 'X-Upload-Content-Length must give the size of the video.');
  }
  if (!type.startsWith('video/') && type !== 'application/octet-stream') {
    return badRequest('invalidContentType', `Media type '${type}' is not supported.`);
  }
  const read = readMetadata(body);
  if ('refusal' in read) return read.refusal;
  return fault(context, 'videos.insert', () => {
    const session = context.store.openSession({
      channelId: caller.channelId,
      metadata: read.metadata,
      declaredLength: length,
      declaredType: type,
      notifySubscribers: request.query.get('notifySubscribers') !== 'false',
    });
    const location = `${context.uploadOrigin()}/upload/youtube/v3/videos?uploadType=resumable`
      + `&part=${parts.join(',')}&upload_id=${session.id}`;
    return { status: 200, headers: { location }, body: '' };
  });
}

function imageType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

function setThumbnail(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  const { request, channelId } = caller;
  if (!mayWrite(caller, ['youtube.upload', 'youtube', 'youtube.force-ssl'])) return insufficientScopes;
  const video = context.store.videos.find((candidate) => candidate.id === request.query.get('videoId'));
  if (video === undefined) {
    return notFound('videoNotFound', 'The video that you are trying to update cannot be found.');
  }
  if (video.channelId !== channelId || context.store.noCustomThumbnails.has(channelId)) {
    return youtubeError(403, 'forbidden', 'The authenticated user doesn’t have permissions for uploading and '
      + 'setting custom thumbnails for the current video.');
  }
  if (request.raw.length > maxThumbnailBytes) {
    return badRequest('mediaBodyTooLarge', 'The thumbnail image is larger than 2 MB.');
  }
  const type = imageType(request.raw);
  if (type === null || request.headers['content-type'] !== type) {
    return badRequest('invalidImage', 'The provided image content is invalid.');
  }
  return fault(context, 'thumbnails.set', () => {
    video.thumbnail = { mimeType: type, bytes: request.raw };
    const url = `https://i.ytimg.com/vi/${video.id}/default.jpg`;
    const items = [{ default: { url, width: 120, height: 90 } }];
    return { status: 200, body: { kind: 'youtube#thumbnailSetResponse', items } };
  });
}

function listVideos(context: YoutubeRouteContext, request: SimulatedRequest): SimulatedAnswer {
  const parts = (request.query.get('part') ?? '').split(',').filter((part) => part !== '');
  if (parts.length === 0) return badRequest('required', 'No part parameter selected');
  const ids = (request.query.get('id') ?? '').split(',');
  const items = context.store.videos.filter((video) => ids.includes(video.id))
    .map((video) => context.store.resource(video, parts));
  return { status: 200, body: { kind: 'youtube#videoListResponse', items, pageInfo: { totalResults: items.length } } };
}

function listPlaylists(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  if (caller.request.query.get('mine') !== 'true') {
    return badRequest('missingRequiredParameter', 'No filter selected.');
  }
  const mine = context.store.playlists.filter((playlist) => playlist.channelId === caller.channelId);
  const { slice, next } = page(mine, caller.request);
  const items = slice.map((playlist) => ({
    kind: 'youtube#playlist',
    id: playlist.id,
    snippet: { title: playlist.title, channelId: playlist.channelId },
    contentDetails: { itemCount: playlist.items.length },
    status: { privacyStatus: playlist.privacyStatus },
  }));
  const more = next === undefined ? {} : { nextPageToken: next };
  return { status: 200, body: { kind: 'youtube#playlistListResponse', items, ...more } };
}

/** Items of a playlist of the channel's, or of its uploads playlist, newest upload first. */
function playlistEntries(context: YoutubeRouteContext, caller: Caller, playlistId: string):
{ id: string; videoId: string }[] | null {
  if (playlistId === uploadsPlaylistOf(caller.channelId)) {
    const uploads = context.store.videosOf(caller.channelId);
    return uploads.map((video) => ({ id: `UU-${video.id}`, videoId: video.id })).reverse();
  }
  return context.store.playlists.find((playlist) => playlist.id === playlistId)?.items ?? null;
}

function listPlaylistItems(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  const { query } = caller.request;
  const entries = playlistEntries(context, caller, query.get('playlistId') ?? '');
  if (entries === null) return notFound('playlistNotFound', 'The playlist identified with the request\'s '
    + '<code>playlistId</code> parameter cannot be found.');
  const videoId = query.get('videoId');
  const max = Number(query.get('maxResults') ?? '5');
  const items = entries.filter((entry) => videoId === null || entry.videoId === videoId).slice(0, max)
    .map((entry) => ({
      kind: 'youtube#playlistItem',
      id: entry.id,
      contentDetails: { videoId: entry.videoId },
      snippet: { playlistId: query.get('playlistId'), resourceId: { kind: 'youtube#video', videoId: entry.videoId } },
    }));
  return { status: 200, body: { kind: 'youtube#playlistItemListResponse', items } };
}

const playlistItemBody = z.object({
  snippet: z.object({
    playlistId: z.string(),
    resourceId: z.object({ kind: z.literal('youtube#video'), videoId: z.string() }),
  }),
});

function insertPlaylistItem(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  if (!mayWrite(caller, ['youtube', 'youtube.force-ssl'])) return insufficientScopes;
  const body = playlistItemBody.safeParse(jsonBody(caller.request));
  if (caller.request.query.get('part') !== 'snippet' || !body.success) {
    return badRequest('invalidResourceId', 'The part parameter must be snippet, and the snippet must name the '
      + 'playlist and a youtube#video resource.');
  }
  const { playlistId, resourceId: { videoId } } = body.data.snippet;
  const playlist = context.store.playlists.find((candidate) => candidate.id === playlistId);
  if (playlist === undefined) return notFound('playlistNotFound', 'Playlist not found.');
  if (playlist.channelId !== caller.channelId) {
    return youtubeError(403, 'playlistItemsNotAccessible', 'The request is not properly authorized to insert '
      + 'the specified playlist item.');
  }
  if (!context.store.videos.some((video) => video.id === videoId)) {
    return notFound('videoNotFound', 'Video not found.');
  }
  return fault(context, 'playlistItems.insert', () => {
    const item = { id: newId(40), videoId };
    playlist.items.push(item);
    return {
      status: 200,
      body: {
        kind: 'youtube#playlistItem', id: item.id,
        snippet: {
          playlistId: playlist.id, position: playlist.items.length - 1, resourceId: { kind: 'youtube#video', videoId },
        },
      },
    };
  });
}

/**
 * videos.delete (youtube, youtube.force-ssl or youtubepartner): the channel's own video leaves
 * the store and every playlist, answered 204; an unknown one is 404 videoNotFound, another
 * channel's 403 forbidden.
 */
function deleteVideo(context: YoutubeRouteContext, caller: Caller): SimulatedAnswer {
  if (!mayWrite(caller, ['youtube', 'youtube.force-ssl', 'youtubepartner'])) return insufficientScopes;
  const videos = context.store.videos;
  const index = videos.findIndex((candidate) => candidate.id === caller.request.query.get('id'));
  const video = videos[index];
  if (video === undefined) return notFound('videoNotFound', 'The video that you are trying to delete cannot be found.');
  if (video.channelId !== caller.channelId) {
    return youtubeError(403, 'forbidden', 'The video that you are trying to delete cannot be deleted. The request '
      + 'might not be properly authorized.');
  }
  return fault(context, 'videos.delete', () => {
    videos.splice(index, 1);
    for (const playlist of context.store.playlists) {
      playlist.items = playlist.items.filter((item) => item.videoId !== video.id);
    }
    return { status: 204 };
  });
}

type Route = (context: YoutubeRouteContext, caller: Caller) => SimulatedAnswer;

const routes: Record<string, Route> = {
  'POST /upload/youtube/v3/videos': openSession,
  'POST /upload/youtube/v3/thumbnails/set': setThumbnail,
  'GET /youtube/v3/videos': (context, caller) => listVideos(context, caller.request),
  'DELETE /youtube/v3/videos': deleteVideo,
  'GET /youtube/v3/playlists': listPlaylists,
  'GET /youtube/v3/playlistItems': listPlaylistItems,
  'POST /youtube/v3/playlistItems': insertPlaylistItem,
};

/** The routes for the Google simulator's `routes` extension; other paths pass on (undefined). */
export function youtubeRoutes(context: YoutubeRouteContext) {
  return (request: SimulatedRequest, user: SimulatedGoogleUser | undefined): SimulatedAnswer | undefined => {
    const route = routes[`${request.method} ${request.path}`];
    if (route === undefined) return undefined;
    const grant = context.authority().grantOf(bearerToken(request));
    if (user === undefined || grant === null) return unauthenticated;
    const channel = user.channels[0];
    if (channel === undefined) return signupRequired;
    return route(context, { request, channelId: channel.id, scopes: grant.scopes });
  };
}
