/**
 * TikTok's rules for a FILE_UPLOAD (oauth-majors.md 8.2, step 3), as `video/init` checks the
 * announced `source_info` and the upload host checks each `PUT`: chunks of 5 to 64 MB, the last
 * one up to 128 MB since it takes the remainder; a file under 5 MB goes whole; a file over 64 MB
 * must be chunked; 1 to 1,000 chunks; `total_chunk_count = floor(video_size / chunk_size)`.
 */

const mb = 1024 * 1024;
export const minChunkBytes = 5 * mb;
export const maxChunkBytes = 64 * mb;
export const maxLastChunkBytes = 128 * mb;
export const maxVideoBytes = 4 * 1024 * mb;
const maxChunks = 1000;

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunkCount: number;
}

/** What is wrong with an announced upload, in words like TikTok's invalid_params messages; null when fine. */
export function chunkPlanProblem(plan: ChunkPlan): string | null {
  const { videoSize, chunkSize, totalChunkCount } = plan;
  if (videoSize <= 0 || videoSize > maxVideoBytes) return `video_size ${String(videoSize)} is outside 1 byte to 4 GB`;
  if (videoSize < minChunkBytes) {
    if (chunkSize !== videoSize || totalChunkCount !== 1) {
      return 'a video under 5 MB must be uploaded whole: chunk_size = video_size and total_chunk_count = 1';
    }
    return null;
  }
  if (chunkSize < minChunkBytes || chunkSize > maxChunkBytes) {
    if (!(chunkSize === videoSize && videoSize <= maxChunkBytes)) return 'chunk_size must be between 5 MB and 64 MB';
  }
  const expected = Math.floor(videoSize / chunkSize);
  if (totalChunkCount !== expected) {
    return `total_chunk_count must be floor(video_size / chunk_size) = ${String(expected)}`;
  }
  if (totalChunkCount < 1 || totalChunkCount > maxChunks) return 'total_chunk_count must be between 1 and 1000';
  if (lastChunkBytes(plan) > maxLastChunkBytes) return 'the last chunk would be over 128 MB';
  return null;
}

function lastChunkBytes(plan: ChunkPlan): number {
  return plan.videoSize - plan.chunkSize * (plan.totalChunkCount - 1);
}

/** The byte range chunk `index` (from 0) must carry; the last takes the remainder. */
export function chunkRange(plan: ChunkPlan, index: number): { first: number; last: number } {
  const first = index * plan.chunkSize;
  const length = index === plan.totalChunkCount - 1 ? lastChunkBytes(plan) : plan.chunkSize;
  return { first, last: first + length - 1 };
}

/** `Content-Range: bytes <first>-<last>/<total>`; null when it is not that. */
export function parseContentRange(header: string | undefined): { first: number; last: number; total: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  if (match === null) return null;
  const [first, last, total] = [match[1], match[2], match[3]].map(Number);
  if (first === undefined || last === undefined || total === undefined || last < first) return null;
  return { first, last, total };
}
