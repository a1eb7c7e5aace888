import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { maxThumbnailBytes } from './definition.ts';
import { provider, unreadable, type YoutubeApi } from './youtube-api.ts';

/**
 * What a post asks of its video once YouTube holds it: a custom thumbnail (thumbnails.set: the
 * video's chosen poster, else the image attached beside it) and a place in a playlist
 * (playlistItems.insert). Each step is checkpointed once done, so a retry (after a later step
 * failed, or a refreshed token) does not repeat it. Setting a thumbnail twice would only spend
 * quota again; adding to a playlist twice would list the video twice, so before a repeated insert
 * the playlist is searched for the video.
 */

const thumbnailAnswer = z.object({ items: z.array(z.object({}).loose()).optional() }).loose();
const playlistItem = z.object({ id: z.string().min(1) }).loose();
const playlistItems = z.object({ items: z.array(playlistItem).default([]) });

/** thumbnails.set: 2 MB at most; at least 256 KiB a second is allowed for sending it. */
const thumbnailTimeoutMs = (size: number): number => Math.ceil((size / (256 * 1024)) * 1000);

/** What thumbnails.set is sent: the image beside the video, or the video's chosen poster. */
export type ThumbnailImage = Pick<PublishMedia, 'mimeType' | 'fileName' | 'open'>;

/**
 * The image read whole, so it goes with its exact length whatever gave it (a poster's size is
 * not carried); one over YouTube's 2 MB is refused here rather than after sending it.
 */
async function thumbnailBytes(image: ThumbnailImage): Promise<Buffer> {
  const stream = await image.open();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size > maxThumbnailBytes) {
      stream.destroy();
      throw new PlatformError({
        kind: 'permanent', provider, message: `${image.fileName} is larger than the 2 MB YouTube takes as a thumbnail`,
      });
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

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

/**
 * thumbnails.set for the published video. A refusal that retrying cannot change (the channel may
 * not set custom thumbnails, an image YouTube will not take) does not fail the post: the video is
 * online either way, with the frame YouTube picked, and failing would have the user post it
 * again. It is answered as a warning for the user, and checkpointed with the step so a retry
 * answers it again without asking. Anything retryable (quota, 5xx) still fails the attempt: the
 * job retries, and the video, checkpointed, is not uploaded again.
 */
export async function setThumbnail(
  api: YoutubeApi,
  checkpoint: PartCheckpoint,
  video: { id: string; url: string },
  image: ThumbnailImage,
): Promise<string | null> {
  if (checkpoint.values.thumbnailOf === video.id) return checkpoint.values.thumbnailRefused ?? null;
  try {
    const bytes = await thumbnailBytes(image);
    const answer = thumbnailAnswer.safeParse(await api.request({
      method: 'POST',
      url: api.endpoint('/upload/youtube/v3/thumbnails/set', { videoId: video.id, uploadType: 'media' }),
      bytes: { data: bytes, contentType: image.mimeType },
      timeoutMs: api.timeoutMs + thumbnailTimeoutMs(bytes.length),
    }));
    if (!answer.success) throw unreadable('a thumbnail', answer.error);
  } catch (error) {
    if (!(error instanceof PlatformError) || error.kind !== 'permanent') throw error;
    const refused = `the video is on YouTube at ${video.url}, but its custom thumbnail was not set: ${error.message}`;
    await checkpoint.save({ thumbnailOf: video.id, thumbnailRefused: refused });
    return refused;
  }
  await checkpoint.save({ thumbnailOf: video.id });
  return null;
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
