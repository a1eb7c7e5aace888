import { segments } from '../kit/byte-segments.ts';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { provider } from './tiktok-api.ts';
import { tiktokErrorMessage } from './tiktok-errors.ts';

/**
 * A video's bytes to TikTok by FILE_UPLOAD (oauth-majors.md 8.2, step 3): announced at init as
 * `video_size`, `chunk_size` and `total_chunk_count`, then one `PUT <upload_url>` per chunk, in
 * order, with its `Content-Range`. TikTok's rules: chunks of 5 to 64 MB, a file under 5 MB (or
 * up to one chunk) whole, `total_chunk_count = floor(video_size / chunk_size)`, so the last
 * chunk carries the remainder (under two chunks, within TikTok's 128 MB for it).
 */

export const videoTypes = ['video/mp4', 'video/quicktime', 'video/webm'];

const mb = 1024 * 1024;
/** Ten megabytes a chunk: few PUTs, and a lost one costs little to send again. */
export const defaultChunkBytes = 10 * mb;

export interface ChunkPlan {
  video_size: number;
  chunk_size: number;
  total_chunk_count: number;
}

/** `chunkBytes` must be 5 to 64 MB; a file no larger than it goes whole. */
export function chunkPlan(size: number, chunkBytes: number): ChunkPlan {
  if (chunkBytes < 5 * mb || chunkBytes > 64 * mb) throw new Error('TikTok takes chunks of 5 to 64 MB');
  if (size <= chunkBytes) return { video_size: size, chunk_size: size, total_chunk_count: 1 };
  return { video_size: size, chunk_size: chunkBytes, total_chunk_count: Math.floor(size / chunkBytes) };
}

/**
 * Sends the file to the upload URL TikTok gave (used as given), chunk by chunk. The upload URL
 * carries its own token: no Authorization header. The last chunk is sent whole even when it is
 * longer than `chunk_size`, as the plan says.
 */
export async function uploadChunks(
  media: PublishMedia,
  uploadUrl: string,
  plan: ChunkPlan,
  timeoutMs: number,
): Promise<void> {
  let index = 0;
  let offset = 0;
  const rest: Buffer[] = [];
  const put = async (chunk: Buffer): Promise<void> => {
    const last = offset + chunk.length - 1;
    await platformRequest({
      provider,
      serverName: 'TikTok\'s upload server',
      method: 'PUT',
      url: uploadUrl,
      headers: { 'Content-Range': `bytes ${String(offset)}-${String(last)}/${String(plan.video_size)}` },
      bytes: { data: chunk, contentType: media.mimeType },
      timeoutMs,
      errorMessage: tiktokErrorMessage,
    });
    offset += chunk.length;
  };
  for await (const segment of segments(await media.open(), plan.chunk_size)) {
    if (index < plan.total_chunk_count - 1) await put(segment);
    else rest.push(segment);
    index += 1;
  }
  await put(Buffer.concat(rest));
  if (offset !== plan.video_size) {
    // The stored file is not the size its record says: TikTok would wait forever for the rest.
    const message =
      `the stored video has ${String(offset)} bytes, not the ${String(plan.video_size)} announced to TikTok`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
}
