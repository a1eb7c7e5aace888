import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { chunkRange, parseContentRange } from './chunk-rules.ts';
import type { TikTokPublishing } from './publishes.ts';
import { refusals, tiktokError } from './tiktok-answers.ts';

/**
 * TikTok's upload host (`PUT <upload_url>`, oauth-majors.md 8.2 step 3): one PUT per chunk, in
 * order, each with `Content-Type: video/mp4|video/quicktime|video/webm`, its `Content-Length`
 * and `Content-Range: bytes <first>-<last>/<total>` matching the chunk plan announced at init.
 * 206 for a chunk, 201 once the last one is in; the upload URL lives an hour.
 */

const videoTypes = ['video/mp4', 'video/quicktime', 'video/webm'];
export const uploadUrlLifetimeMs = 3600 * 1000;

export function putChunk(request: SimulatedRequest, publishing: TikTokPublishing): SimulatedAnswer {
  const publish = publishing.byUpload(request.query.get('upload_id') ?? '');
  const upload = publish?.upload;
  if (publish === undefined || upload === undefined || upload === null) {
    return tiktokError(404, 'invalid_params', 'The upload_id is unknown.');
  }
  if (request.query.get('upload_token') !== upload.token) {
    return tiktokError(403, 'invalid_params', 'The upload_token does not match the upload.');
  }
  if (Date.now() > publish.createdAt + uploadUrlLifetimeMs) {
    return tiktokError(403, 'invalid_params', 'The upload URL has expired; start a new publish.');
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (!videoTypes.includes(type)) {
    return refusals.invalidParams(`Content-Type ${type || '(none)'} is not one of ${videoTypes.join(', ')}`);
  }
  const range = parseContentRange(request.headers['content-range']);
  if (range === null) return refusals.invalidParams('Content-Range must be "bytes <first>-<last>/<total>"');
  const { plan } = upload;
  if (range.total !== plan.videoSize) {
    return refusals.invalidParams(`Content-Range total ${String(range.total)} is not the video_size announced`);
  }
  const index = upload.chunks.length;
  if (index >= plan.totalChunkCount) return refusals.invalidParams('Every chunk was already uploaded');
  const expected = chunkRange(plan, index);
  if (range.first !== expected.first || range.last !== expected.last) {
    const wanted = `bytes ${String(expected.first)}-${String(expected.last)}/${String(plan.videoSize)}`;
    return refusals.invalidParams(`Chunk ${String(index + 1)} must be sent next, as ${wanted}`);
  }
  const length = Number(request.headers['content-length'] ?? -1);
  if (length !== request.raw.length || request.raw.length !== range.last - range.first + 1) {
    return refusals.invalidParams('Content-Length and the body do not match the Content-Range');
  }
  upload.chunks.push(request.raw);
  upload.received += request.raw.length;
  upload.contentTypes.push(type);
  if (upload.chunks.length < plan.totalChunkCount) return { status: 206 };
  publish.mediaAt = Date.now();
  return { status: 201 };
}
