import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, unreadable, type YoutubeApi } from './youtube-api.ts';

/**
 * What a post asks of its video once YouTube holds it: a custom thumbnail (thumbnails.set, the
 * image attached beside the video) and a place in a playlist (playlistItems.insert). Each step is
 * checkpointed once done, so a retry (after a later step failed, or a refreshed token) does not
 * repeat it. Setting a thumbnail twice would only spend quota again; adding to a playlist twice
 * would list the video twice, so before a repeated insert the playlist is searched for the video.
 */

const thumbnailAnswer = z.object({ items: z.array(z.object({}).loose()).optional() }).loose();
const playlistItem = z.object({ id: z.string().min(1) }).loose();
const playlistItems = z.object({ items: z.array(playlistItem).default([]) });

/** thumbnails.set: 2 MB at most; at least 256 KiB a second is allowed for sending it. */
const thumbnailTimeoutMs = (size: number): number => Math.ceil((size / (256 * 1024)) * 1000);

/**
 * Runs one step on a video YouTube already published. A refusal that retrying cannot change fails
 * the post, with a message naming the video that exists, so the user fixes the step on YouTube
 * rather than posting the video again.
 */
async function onPublished<T>(videoUrl: string, step: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof PlatformError) || error.kind !== 'permanent') throw error;
    const message = `the video is on YouTube at ${videoUrl}, but ${step} failed: ${error.message}`;
    throw new PlatformError({
      kind: 'permanent', provider, message, httpStatus: error.httpStatus, body: error.body, cause: error,
    });
  }
}

export async function setThumbnail(
  api: YoutubeApi,
  checkpoint: PartCheckpoint,
  video: { id: string; url: string },
  image: PublishMedia,
): Promise<void> {
  if (checkpoint.values.thumbnailOf === video.id) return;
  await onPublished(video.url, 'setting its custom thumbnail', async () => {
    const answer = thumbnailAnswer.safeParse(await api.request({
      method: 'POST',
      url: api.endpoint('/upload/youtube/v3/thumbnails/set', { videoId: video.id, uploadType: 'media' }),
      bytes: { data: await image.open(), contentType: image.mimeType, length: image.size },
      timeoutMs: api.timeoutMs + thumbnailTimeoutMs(image.size),
    }));
    if (!answer.success) throw unreadable('a thumbnail', answer.error);
  });
  await checkpoint.save({ thumbnailOf: video.id });
}

export async function addToPlaylist(
  api: YoutubeApi,
  checkpoint: PartCheckpoint,
  video: { id: string; url: string },
  playlistId: string,
): Promise<void> {
  const { playlistItem: done, playlistAttempt } = checkpoint.values;
  if (done !== undefined) return;
  const attempt = `${playlistId}:${video.id}`;
  await onPublished(video.url, `adding it to playlist ${playlistId}`, async () => {
    if (playlistAttempt === attempt) {
      // An earlier insert may have gone through with its answer lost: YouTube lists the video then.
      const listed = await api.get('/youtube/v3/playlistItems', {
        part: 'id', playlistId, videoId: video.id, maxResults: '5',
      }, playlistItems, 'the playlist\'s items');
      const [found] = listed.items;
      if (found !== undefined) {
        await checkpoint.save({ playlistItem: found.id });
        return;
      }
    } else {
      await checkpoint.save({ playlistAttempt: attempt });
    }
    const added = playlistItem.safeParse(await api.request({
      method: 'POST',
      url: api.endpoint('/youtube/v3/playlistItems', { part: 'snippet' }),
      json: { snippet: { playlistId, resourceId: { kind: 'youtube#video', videoId: video.id } } },
    }));
    if (!added.success) throw unreadable('a playlist item', added.error);
    await checkpoint.save({ playlistItem: added.data.id });
  });
}
