import type { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  startGoogleSimulator, type RunningGoogleSimulator, type SimulatedGoogleUser, type SimulatedYoutubeChannel,
} from './google-simulator.ts';
import { youtubeRoutes } from './youtube-routes.ts';
import { YoutubeStore, uploadsPlaylistOf } from './youtube-store.ts';
import { startUploadServer } from './youtube-upload-server.ts';

/**
 * The Google simulator with YouTube's publishing side: the Data API routes (youtube-routes.ts)
 * on its origin, channels.list's `statistics` and `contentDetails` parts, and the upload session
 * addresses on a server of their own (youtube-upload-server.ts). `store` holds what was made and
 * takes the faults a test asks for: `failNext` per API step (an answer, or `{lose: true}` to act
 * and drop the connection), `cutNextChunkAfter`, `loseNextCompletion`, `expireSessions()`.
 */
export interface YoutubeSimulator extends RunningGoogleSimulator {
  store: YoutubeStore;
  /** Origin of the upload session addresses. */
  uploadUrl: string;
}

function channelParts(store: YoutubeStore) {
  return (channel: SimulatedYoutubeChannel, parts: readonly string[]): Record<string, unknown> => {
    const videos = store.videosOf(channel.id);
    const views = videos.reduce((sum, video) => sum + video.statistics.viewCount, 0);
    const hidden = store.hiddenSubscribers.has(channel.id);
    return {
      ...(parts.includes('statistics') ? {
        statistics: {
          viewCount: String(views),
          ...(hidden ? {} : { subscriberCount: String(store.subscribers.get(channel.id) ?? 0) }),
          hiddenSubscriberCount: hidden,
          videoCount: String(videos.length),
        },
      } : {}),
      ...(parts.includes('contentDetails') ? {
        contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsPlaylistOf(channel.id) } },
      } : {}),
    };
  };
}

export async function startYoutubeSimulator(users: Record<string, SimulatedGoogleUser>): Promise<YoutubeSimulator> {
  const store = new YoutubeStore();
  const uploads = await startUploadServer(store);
  let authority: OAuthAuthority | null = null;
  const google = await startGoogleSimulator(users, {
    routes: youtubeRoutes({
      store,
      authority: () => {
        if (authority === null) throw new Error('the Google simulator is not started yet');
        return authority;
      },
      uploadOrigin: () => uploads.url,
    }),
    channelParts: channelParts(store),
  });
  authority = google.authority;
  return {
    ...google,
    store,
    uploadUrl: uploads.url,
    close: async () => {
      await Promise.all([google.close(), uploads.close()]);
    },
  };
}
