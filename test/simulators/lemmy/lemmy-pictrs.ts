import { randomBytes, randomUUID } from 'node:crypto';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { multipartParts } from '../kit/multipart-form.ts';
import { signedIn } from './lemmy-requests.ts';
import type { LemmyState } from './lemmy-state.ts';

/**
 * The instance's pict-rs behind Lemmy 0.19's `POST /pictrs/image` (open-and-community.md 7.3):
 * only for signed-in users, multipart files in the field `images[]`, each validated by its bytes
 * (not by the name or type the client claims), answered 201 `{msg: "ok", files: [{file,
 * delete_token}]}`. pict-rs refusals read `{msg}`. Video is taken only where the instance allows it.
 */

interface Detected {
  extension: string;
  contentType: string;
  video: boolean;
}

/** What the bytes are, from their signature, as pict-rs's validation decides it. */
function detect(bytes: Buffer): Detected | null {
  const starts = (signature: number[], at = 0) => signature.every((byte, index) => bytes[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47])) return { extension: 'png', contentType: 'image/png', video: false };
  if (starts([0xff, 0xd8, 0xff])) return { extension: 'jpg', contentType: 'image/jpeg', video: false };
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') {
    return { extension: 'gif', contentType: 'image/gif', video: false };
  }
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return { extension: 'webp', contentType: 'image/webp', video: false };
  }
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') {
    return { extension: 'mp4', contentType: 'video/mp4', video: true };
  }
  if (starts([0x1a, 0x45, 0xdf, 0xa3])) return { extension: 'webm', contentType: 'video/webm', video: true };
  return null;
}

const pictrsError = (status: number, msg: string): SimulatedAnswer => ({ status, body: { msg } });

export function uploadImages(state: LemmyState, request: SimulatedRequest, allowVideo: boolean): SimulatedAnswer {
  const session = signedIn(state, request);
  if ('refusal' in session) return session.refusal;
  const parts = multipartParts(request);
  if (parts === null) return pictrsError(400, 'Error in upload: not a multipart/form-data body');
  const files = parts.filter((part) => part.name === 'images[]' && part.fileName !== null);
  if (files.length === 0) return pictrsError(400, 'No files present in upload');
  const detected = files.map((part) => detect(part.data));
  if (detected.some((kind) => kind === null)) return pictrsError(415, 'Unsupported media type');
  if (!allowVideo && detected.some((kind) => kind?.video === true)) {
    return pictrsError(400, 'Video uploads are disabled');
  }
  const stored = files.map((part, index) => {
    const kind = detected[index] as Detected;
    const image = {
      file: `${randomUUID()}.${kind.extension}`,
      deleteToken: randomBytes(12).toString('hex'),
      uploaderId: session.user.id,
      contentType: kind.contentType,
      fileName: part.fileName ?? '',
      bytes: part.data,
    };
    state.images.push(image);
    return { file: image.file, delete_token: image.deleteToken };
  });
  return { status: 201, body: { msg: 'ok', files: stored } };
}
