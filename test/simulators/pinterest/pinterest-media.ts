import { createHmac, randomBytes } from 'node:crypto';
import { jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import { multipartParts } from '../kit/multipart-form.ts';
import { invalidParameters, invalidRequest, notFound } from './pinterest-answers.ts';

/**
 * Pinterest's video registration (design-blogging-business.md 1.3): `POST /v5/media` answers a
 * media id, an upload URL and the fields of a presigned S3 POST; the file goes there as a
 * multipart form, every field first and `file` last, answered 204 with no body; `GET
 * /v5/media/{id}` says `registered` until the file arrives, `processing` for a few reads, then
 * `succeeded` (or `failed`). The upload host checks its policy as S3 does and refuses in S3's
 * XML; it takes no Authorization header (its form is its credential).
 */

export type MediaStatus = 'registered' | 'processing' | 'succeeded' | 'failed';

export interface SimulatedPinterestMedia {
  id: string;
  owner: string;
  status: MediaStatus;
  /** The form fields the upload must carry back, as registered. */
  parameters: Record<string, string>;
  bytes: Buffer | null;
  fileName: string | null;
  /** Status reads answered `processing` so far. */
  processingReads: number;
}

/** Where the simulator's upload host answers, on the same server as the API. */
export const uploadPath = '/pinterest-media-upload/';

/** S3's refusal: XML with its code and message. */
export function s3Error(status: number, code: string, message: string): SimulatedAnswer {
  const xml = `<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return { status, body: `<?xml version="1.0" encoding="UTF-8"?>\n${xml}` };
}

/** An MP4 or QuickTime file: an `ftyp` box at byte 4. */
const isVideo = (bytes: Buffer): boolean => bytes.subarray(4, 8).toString('latin1') === 'ftyp';

export class PinterestMediaStore {
  readonly items = new Map<string, SimulatedPinterestMedia>();
  /** Status reads that answer `processing` once the file is in. */
  processingReads = 1;
  /** What processing ends in for the next uploads. */
  outcome: 'succeeded' | 'failed' = 'succeeded';
  /** Largest file the upload host takes. */
  maxBytes = 2 * 1024 * 1024 * 1024;
  readonly #secret = randomBytes(16);
  readonly #origin: () => string;

  constructor(origin: () => string) {
    this.#origin = origin;
  }

  register(request: SimulatedRequest, owner: string): SimulatedAnswer {
    const body = jsonBody(request);
    const fields = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {};
    if (fields.media_type !== 'video') return invalidParameters;
    const id = String(5_000_000_000_000 + this.items.size + 1);
    const key = `uploads/${randomBytes(6).toString('hex')}/${id}`;
    const expiration = new Date(Date.now() + 3600_000).toISOString();
    const policy = Buffer.from(JSON.stringify({ expiration, key })).toString('base64');
    const parameters = {
      key,
      policy,
      'x-amz-algorithm': 'AWS4-HMAC-SHA256',
      'x-amz-credential': 'AKIASIMULATED/20250101/us-east-1/s3/aws4_request',
      'x-amz-date': '20250101T000000Z',
      'x-amz-signature': createHmac('sha256', this.#secret).update(policy).digest('hex'),
      'Content-Type': 'multipart/form-data',
    };
    this.items.set(id, {
      id, owner, status: 'registered', parameters, bytes: null, fileName: null, processingReads: 0,
    });
    const uploadUrl = `${this.#origin()}${uploadPath}`;
    const answer = { media_id: id, media_type: 'video', upload_url: uploadUrl, upload_parameters: parameters };
    return { status: 201, body: answer };
  }

  /** The S3 side: the form's fields must be the registered ones, in front of the file. */
  upload(request: SimulatedRequest): SimulatedAnswer {
    if (request.headers.authorization !== undefined) {
      return s3Error(400, 'InvalidArgument', 'Only one auth mechanism allowed; the form carries the signature');
    }
    const parts = multipartParts(request);
    if (parts === null) return s3Error(412, 'PreconditionFailed', 'The body of a POST must be multipart/form-data');
    const fileAt = parts.findIndex((part) => part.name === 'file');
    const file = parts[fileAt];
    if (file === undefined) return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload.');
    if (fileAt !== parts.length - 1) {
      return s3Error(400, 'InvalidArgument', 'Bucket POST must have the field \'file\' after every other field.');
    }
    const fields = new Map(parts.slice(0, fileAt).map((part) => [part.name, part.data.toString('utf8')]));
    const media = [...this.items.values()].find((item) => item.parameters.key === fields.get('key'));
    const signed = media !== undefined
      && Object.entries(media.parameters).every(([name, value]) => fields.get(name) === value);
    if (media === undefined || !signed) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    if (file.data.length > this.maxBytes) {
      return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    }
    media.bytes = file.data;
    media.fileName = file.fileName;
    // Pinterest checks the file once it has it: what is not a video fails processing.
    media.status = isVideo(file.data) ? 'processing' : 'failed';
    return { status: 204 };
  }

  status(id: string, owner: string): SimulatedAnswer {
    const media = this.items.get(id);
    if (media === undefined || media.owner !== owner) return notFound;
    if (media.status === 'processing') {
      if (media.processingReads >= this.processingReads) media.status = this.outcome;
      else media.processingReads += 1;
    }
    return { status: 200, body: { media_id: media.id, media_type: 'video', status: media.status } };
  }

  /** The media a `video_id` pin names, or Pinterest's refusal of it. */
  forPin(id: unknown, owner: string): SimulatedPinterestMedia | SimulatedAnswer {
    const media = typeof id === 'string' ? this.items.get(id) : undefined;
    if (media === undefined || media.owner !== owner) return invalidRequest('Media not found.');
    if (media.status !== 'succeeded') return invalidRequest(`Media ${media.id} is ${media.status}, not ready to pin.`);
    return media;
  }
}
