import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { youtubeSettings } from './definition.ts';
import { defaultUploadTuning, ResumableUpload, type UploadTuning } from './resumable-upload.ts';
import { provider, YoutubeApi } from './youtube-api.ts';
import { addToPlaylist, setThumbnail } from './video-extras.ts';

/** The watch page of a video; Shorts open there too. */
export function videoUrl(id: string): string {
  return `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;
}

/** Counters come as decimal strings (uint64 in JSON). */
const count = z.string().regex(/^\d+$/).transform(Number);

const channelStatistics = z.object({
  items: z.array(z.object({
    statistics: z.object({
      viewCount: count.optional(),
      subscriberCount: count.optional(),
      hiddenSubscriberCount: z.boolean().optional(),
      videoCount: count.optional(),
    }),
  })).default([]),
});

const videoStatistics = z.object({
  items: z.array(z.object({
    id: z.string(),
    // likeCount and commentCount are left out where the owner hid likes or turned comments off.
    statistics: z.object({ viewCount: count.optional(), likeCount: count.optional(), commentCount: count.optional() }),
  })).default([]),
});

const uploadsPlaylist = z.object({
  items: z.array(z.object({
    contentDetails: z.object({ relatedPlaylists: z.object({ uploads: z.string().min(1) }) }),
  })).default([]),
});

const uploadedItems = z.object({
  items: z.array(z.object({ contentDetails: z.object({ videoId: z.string().min(1) }) })).default([]),
});

const playlistPage = z.object({
  nextPageToken: z.string().optional(),
  items: z.array(z.object({
    id: z.string(),
    snippet: z.object({ title: z.string() }),
    contentDetails: z.object({ itemCount: z.number().int() }).optional(),
    status: z.object({ privacyStatus: z.string() }).optional(),
  })).default([]),
});

/** The playlists tool takes nothing; what it is sent is read here so a client's mistake is said. */
const playlistsData = z.object({}).strict();

/** A channel with more playlists than this many pages of 50 is listed in part. */
const maxPlaylistPages = 10;

function permanent(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

type Settings = z.infer<typeof youtubeSettings>;

function readSettings(raw: Record<string, unknown>): Settings {
  const parsed = youtubeSettings.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw permanent(`the YouTube settings are not valid: ${problems}`);
  }
  return parsed.data;
}

/** The video resource sent with the upload: the post text is its description. */
function videoResource(settings: Settings, description: string): unknown {
  const defined = (fields: Record<string, unknown>) => Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
  return {
    snippet: defined({
      title: settings.title,
      description,
      tags: settings.tags,
      categoryId: settings.categoryId,
      defaultLanguage: settings.defaultLanguage,
    }),
    status: defined({
      privacyStatus: settings.privacyStatus,
      selfDeclaredMadeForKids: settings.selfDeclaredMadeForKids,
      embeddable: settings.embeddable,
      license: settings.license,
      containsSyntheticMedia: settings.containsSyntheticMedia,
    }),
  };
}

/**
 * Publishes one video per post to the channel with the YouTube Data API v3
 * (../shared/platforms/oauth-majors.md, section 7): the part's video goes up with the resumable
 * protocol (resumable-upload.ts) with the title, privacy, category, tags and made-for-kids of the
 * settings and the post text as description; then the video's chosen poster (`image[].thumbnail`),
 * else an image attached beside it, becomes its custom thumbnail (a refusal is a warning, not a
 * failure) and, with `playlistId` set, it is added to that playlist (video-extras.ts).
 *
 * Exactly once: the upload session's address is checkpointed before the first byte, and a retry
 * asks the session where it stands instead of uploading again; the video id is checkpointed the
 * moment it is known, and each later step once done. YouTube has no comments in SPS's contract
 * (`replies: 'none'`): posts of more than one part are refused at POST /posts.
 */
export function createYoutubeAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  tuning: UploadTuning = defaultUploadTuning,
): PlatformAdapter {
  const apiFor = (channel: ChannelCredentials): YoutubeApi =>
    new YoutubeApi(app.apiUrl, channel.accessToken, options.timeoutMs);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = readSettings(input.settings);
    const videos = input.media.filter((media) => media.kind === 'video');
    const images = input.media.filter((media) => media.kind === 'image');
    const [video] = videos;
    if (video === undefined || videos.length > 1 || images.length > 1) {
      throw permanent('a YouTube post takes exactly 1 video and at most 1 image, its thumbnail');
    }
    const api = apiFor(input.channel);
    const query: Record<string, string> = settings.notifySubscribers === undefined
      ? {} : { notifySubscribers: String(settings.notifySubscribers) };
    const id = await new ResumableUpload(api, input.checkpoint, tuning).videoId({
      video, metadata: videoResource(settings, input.content), query,
    });
    const published = { id, url: videoUrl(id) };
    // YouTube makes its own thumbnail from the video: only a poster the person chose is set, and it
    // wins over an image attached beside the video, the older way of giving one.
    const thumbnail = video.poster?.chosen === true ? video.poster : images[0];
    const refused = thumbnail === undefined ? null : await setThumbnail(api, input.checkpoint, published, thumbnail);
    if (settings.playlistId !== undefined) {
      await addToPlaylist(api, input.checkpoint, published, settings.playlistId);
    }
    return { releaseId: id, releaseURL: published.url, ...(refused === null ? {} : { warnings: [refused] }) };
  }

  return {
    provider,
    publish,

    comment() {
      // validate-post.ts refuses a second part for `replies: 'none'`; this is the last guard.
      return Promise.reject(permanent('YouTube posts are one video: SPS does not publish threads or comments there'));
    },

    /** videos.delete (youtube.force-ssl, which channels grant): the video, gone for good. */
    async remove(channel, { releaseId }) {
      const api = apiFor(channel);
      await removedEvenIfGone(() => api.request({
        method: 'DELETE', url: api.endpoint('/youtube/v3/videos', { id: releaseId }),
      }));
    },

    async recentContent(channel) {
      const api = apiFor(channel);
      const channels = await api.get('/youtube/v3/channels', { part: 'contentDetails', mine: 'true' },
        uploadsPlaylist, 'the channel without its uploads');
      const uploads = channels.items[0]?.contentDetails.relatedPlaylists.uploads;
      if (uploads === undefined) throw permanent('YouTube: the connected account has no channel');
      const listed = await api.get('/youtube/v3/playlistItems', {
        part: 'contentDetails', playlistId: uploads, maxResults: '20',
      }, uploadedItems, 'the channel\'s uploads');
      return listed.items.map(({ contentDetails: { videoId } }) => ({ id: videoId, url: videoUrl(videoId) }));
    },

    tools: {
      async playlists(channel, data) {
        const input = playlistsData.safeParse(data);
        if (!input.success) {
          throw permanent(`the playlists tool takes no input: ${input.error.issues[0]?.message ?? ''}`);
        }
        const api = apiFor(channel);
        const playlists: { id: string; title: string; itemCount: number | null; privacyStatus: string | null }[] = [];
        let pageToken: string | undefined;
        for (let page = 0; page < maxPlaylistPages; page += 1) {
          const listed = await api.get('/youtube/v3/playlists', {
            part: 'snippet,contentDetails,status', mine: 'true', maxResults: '50',
            ...(pageToken === undefined ? {} : { pageToken }),
          }, playlistPage, 'the channel\'s playlists');
          playlists.push(...listed.items.map((item) => ({
            id: item.id,
            title: item.snippet.title,
            itemCount: item.contentDetails?.itemCount ?? null,
            privacyStatus: item.status?.privacyStatus ?? null,
          })));
          pageToken = listed.nextPageToken;
          if (pageToken === undefined) break;
        }
        return playlists;
      },
    },

    analytics: {
      async account(channel) {
        const answer = await apiFor(channel).get('/youtube/v3/channels', { part: 'statistics', mine: 'true' },
          channelStatistics, 'the channel\'s statistics');
        const statistics = answer.items[0]?.statistics;
        if (statistics === undefined) throw permanent('YouTube: the connected account has no channel');
        return [
          // A channel may hide its subscriber count; YouTube then still sends a number, but not the real one.
          ...(statistics.hiddenSubscriberCount === true || statistics.subscriberCount === undefined
            ? [] : [{ label: 'Subscribers', value: statistics.subscriberCount }]),
          ...(statistics.viewCount === undefined ? [] : [{ label: 'Views', value: statistics.viewCount }]),
          ...(statistics.videoCount === undefined ? [] : [{ label: 'Videos', value: statistics.videoCount }]),
        ];
      },

      async post(channel, releaseId) {
        const answer = await apiFor(channel).get('/youtube/v3/videos', { part: 'statistics', id: releaseId },
          videoStatistics, 'a video\'s statistics');
        const found = answer.items.find((item) => item.id === releaseId);
        if (found === undefined) throw permanent(`YouTube: video ${releaseId} was not found (deleted or private)`);
        const { viewCount, likeCount, commentCount } = found.statistics;
        return [
          ...(viewCount === undefined ? [] : [{ label: 'Views', value: viewCount }]),
          ...(likeCount === undefined ? [] : [{ label: 'Likes', value: likeCount }]),
          ...(commentCount === undefined ? [] : [{ label: 'Comments', value: commentCount }]),
        ];
      },
    },
  };
}
