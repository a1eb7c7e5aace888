import { randomBytes } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * What the YouTube simulator holds: videos, upload sessions, playlists, and the faults a test
 * asks for. The HTTP sides (youtube-routes.ts, youtube-upload-server.ts) read and change it.
 */

export interface SimulatedVideo {
  id: string;
  channelId: string;
  snippet: {
    title: string;
    description: string;
    tags?: string[];
    categoryId: string;
    defaultLanguage?: string;
  };
  status: Record<string, unknown> & { privacyStatus: string; uploadStatus: string };
  mimeType: string;
  bytes: Buffer;
  notifySubscribers: boolean;
  thumbnail: { mimeType: string; bytes: Buffer } | null;
  statistics: { viewCount: number; likeCount: number; commentCount: number };
}

export interface UploadSession {
  id: string;
  channelId: string;
  metadata: { snippet: SimulatedVideo['snippet']; status: Record<string, unknown> & { privacyStatus: string } };
  declaredLength: number;
  declaredType: string;
  notifySubscribers: boolean;
  /** The bytes the session holds, in order. */
  taken: Buffer[];
  takenLength: number;
  videoId: string | null;
  /** Expired by the test: its address answers 410. */
  expired: boolean;
}

export interface SimulatedPlaylist {
  id: string;
  channelId: string;
  title: string;
  privacyStatus: 'public' | 'unlisted' | 'private';
  items: { id: string; videoId: string }[];
}

/** One request to an upload session address, as the upload server saw it. */
export interface SessionRequest {
  sessionId: string;
  contentRange: string | null;
  /** Body bytes that arrived (all of them, or up to the cut). */
  bodyBytes: number;
  /** Bytes of this request the session kept. */
  kept: number;
  outcome: 'complete' | 'incomplete' | 'cut' | 'lost' | 'refused';
}

/** Steps of the API a test can make fail; `lose` does the work, then drops the connection. */
export type YoutubeStep = 'videos.insert' | 'thumbnails.set' | 'playlistItems.insert' | 'videos.delete';
export type InjectedFault = SimulatedAnswer | { lose: true };

export function newId(length: number): string {
  return randomBytes(length).toString('base64url').slice(0, length);
}

/** The uploads playlist YouTube keeps for every channel: `UC...` becomes `UU...`. */
export function uploadsPlaylistOf(channelId: string): string {
  return `UU${channelId.slice(2)}`;
}

export class YoutubeStore {
  readonly videos: SimulatedVideo[] = [];
  readonly sessions = new Map<string, UploadSession>();
  readonly playlists: SimulatedPlaylist[] = [];
  readonly sessionRequests: SessionRequest[] = [];
  /** Subscribers per channel id (0 unless set); `hiddenSubscribers` hides the count. */
  readonly subscribers = new Map<string, number>();
  readonly hiddenSubscribers = new Set<string>();
  /** Channels YouTube does not (yet) allow custom thumbnails: thumbnails.set answers 403 forbidden. */
  readonly noCustomThumbnails = new Set<string>();
  /** The next chunk sent to a session keeps this many bytes, then the connection drops. */
  cutNextChunkAfter: number | null = null;
  /** The next upload that completes creates its video, then the connection drops. */
  loseNextCompletion = false;
  readonly #faults = new Map<YoutubeStep, InjectedFault[]>();

  failNext(step: YoutubeStep, ...faults: InjectedFault[]): void {
    this.#faults.set(step, [...(this.#faults.get(step) ?? []), ...faults]);
  }

  takeFault(step: YoutubeStep): InjectedFault | undefined {
    return this.#faults.get(step)?.shift();
  }

  addPlaylist(channelId: string, title: string, privacyStatus: SimulatedPlaylist['privacyStatus'] = 'public'):
  SimulatedPlaylist {
    const playlist = { id: `PL${newId(32)}`, channelId, title, privacyStatus, items: [] };
    this.playlists.push(playlist);
    return playlist;
  }

  openSession(session: Omit<UploadSession, 'id' | 'taken' | 'takenLength' | 'videoId' | 'expired'>): UploadSession {
    const opened = { ...session, id: newId(24), taken: [], takenLength: 0, videoId: null, expired: false };
    this.sessions.set(opened.id, opened);
    return opened;
  }

  /** Every open session answers 410 from now on, as a week-old one does. */
  expireSessions(): void {
    for (const session of this.sessions.values()) if (session.videoId === null) session.expired = true;
  }

  /** The video a session's last byte makes; made once. */
  complete(session: UploadSession): SimulatedVideo {
    const made = this.videos.find((video) => video.id === session.videoId);
    if (made !== undefined) return made;
    const video: SimulatedVideo = {
      id: newId(11),
      channelId: session.channelId,
      snippet: session.metadata.snippet,
      status: { ...session.metadata.status, uploadStatus: 'uploaded' },
      mimeType: session.declaredType,
      bytes: Buffer.concat(session.taken),
      notifySubscribers: session.notifySubscribers,
      thumbnail: null,
      statistics: { viewCount: 0, likeCount: 0, commentCount: 0 },
    };
    this.videos.push(video);
    session.videoId = video.id;
    return video;
  }

  videosOf(channelId: string): SimulatedVideo[] {
    return this.videos.filter((video) => video.channelId === channelId);
  }

  /** The video resource as videos.insert and videos.list answer it, with the parts asked for. */
  resource(video: SimulatedVideo, parts: readonly string[] = ['snippet', 'status']): Record<string, unknown> {
    const { viewCount, likeCount, commentCount } = video.statistics;
    return {
      kind: 'youtube#video',
      etag: `etag-${video.id}`,
      id: video.id,
      ...(parts.includes('snippet') ? {
        snippet: { ...video.snippet, channelId: video.channelId, publishedAt: new Date().toISOString() },
      } : {}),
      ...(parts.includes('status') ? { status: video.status } : {}),
      ...(parts.includes('statistics') ? {
        statistics: {
          viewCount: String(viewCount), likeCount: String(likeCount), favoriteCount: '0',
          // YouTube leaves commentCount out where comments are off (always for made-for-kids videos).
          ...(video.status.selfDeclaredMadeForKids === true ? {} : { commentCount: String(commentCount) }),
        },
      } : {}),
    };
  }
}
