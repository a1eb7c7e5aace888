import { multipartParts } from '../kit/multipart-form.ts';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import type { ListmonkState, SimulatedMedia } from './listmonk-state.ts';

/**
 * The media store as listmonk v5 runs it with the filesystem provider (cmd/media.go,
 * design-blogging-business.md 8.3): `POST /api/media` takes a multipart `file` whose extension
 * is in the allowed list (jpg, jpeg, png, gif by default) and answers the stored file with its
 * public URL; `GET /api/media` pages the store, `query` filtering by file name.
 */

const allowedExtensions = ['jpg', 'jpeg', 'png', 'gif'];

export function presentMedia(root: string, file: SimulatedMedia) {
  return {
    id: file.id,
    uuid: file.uuid,
    filename: file.filename,
    content_type: file.contentType,
    created_at: new Date().toISOString(),
    thumb_url: `${root}/uploads/thumb_${file.filename}`,
    provider: 'filesystem',
    url: `${root}/uploads/${file.filename}`,
  };
}

export function uploadMedia(state: ListmonkState, root: string, request: SimulatedRequest): SimulatedAnswer {
  const parts = multipartParts(request);
  const file = parts?.find((part) => part.name === 'file' && part.fileName !== null);
  if (file?.fileName === undefined || file.fileName === null) {
    return { status: 400, body: { message: 'Invalid file: http: no such file' } };
  }
  const extension = (/\.([^.]+)$/.exec(file.fileName)?.[1] ?? '').toLowerCase();
  if (!allowedExtensions.includes(extension)) {
    return { status: 400, body: { message: `Unsupported file type (${extension})` } };
  }
  const stored = state.addMedia(file.fileName, file.contentType ?? 'application/octet-stream', file.data);
  return { status: 200, body: { data: presentMedia(root, stored) } };
}

export function queryMedia(state: ListmonkState, root: string, request: SimulatedRequest): SimulatedAnswer {
  const query = (request.query.get('query') ?? '').toLowerCase();
  const matching = state.media.filter((file) => file.filename.toLowerCase().includes(query)).reverse();
  return {
    status: 200,
    body: { data: { results: matching.map((file) => presentMedia(root, file)), total: matching.length, page: 1 } },
  };
}
