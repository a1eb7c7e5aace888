import { createHash, randomBytes } from 'node:crypto';
import { multipartParts } from '../kit/multipart-form.ts';
import { formBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import type { RedditRecords, SimulatedAsset } from './reddit-records.ts';

/**
 * Reddit's upload lease and the S3 bucket it points at (open-and-community.md 6.3):
 * - `POST /api/media/asset.json` {filepath, mimetype} answers `{args: {action, fields}, asset}`,
 *   the action protocol-relative (`//host/path`) as Reddit's is;
 * - `POST <action>` is S3's browser form upload: every field the lease named, unchanged, then
 *   `file` as the last part; 201 with XML `<PostResponse><Location>...` once stored, S3's XML
 *   errors otherwise (a missing or altered field, a file after the limit, a lease past its time).
 */
export const storagePath = '/reddit-uploaded-media';

/** The types the lease takes (PRAW's list, plus WebP, which the site accepts). */
const leaseTypes: Readonly<Record<string, string>> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp',
  'video/mp4': 'mp4', 'video/quicktime': 'mov',
};

export interface UploadLimits {
  imageBytes: number;
  videoBytes: number;
  /** How long a lease's signed policy holds. */
  leaseMs: number;
}

export function s3Error(status: number, code: string, message: string, extra = ''): SimulatedAnswer {
  const body = '<?xml version="1.0" encoding="UTF-8"?>\n'
    + `<Error><Code>${code}</Code><Message>${message}</Message>${extra}`
    + '<RequestId>4442587FB7D0A2F9</RequestId></Error>';
  return { status, body, headers: { 'content-type': 'application/xml' } };
}

export class RedditUploads {
  readonly #records: RedditRecords;
  readonly #origin: () => string;
  readonly #now: () => number;
  limits: UploadLimits = { imageBytes: 20 * 1024 * 1024, videoBytes: 1024 * 1024 * 1024, leaseMs: 60 * 60_000 };

  constructor(records: RedditRecords, origin: () => string, now: () => number) {
    this.#records = records;
    this.#origin = origin;
    this.#now = now;
  }

  /** The stored file a submission names by URL (`http(s)://<host>/reddit-uploaded-media/<key>`). */
  assetAt(url: string): SimulatedAsset | undefined {
    const parsed = URL.parse(url);
    const host = URL.parse(this.#origin());
    if (parsed === null || host === null || parsed.host !== host.host) return undefined;
    if (!parsed.pathname.startsWith(`${storagePath}/`)) return undefined;
    const key = decodeURIComponent(parsed.pathname.slice(storagePath.length + 1));
    return this.#records.assets.find((asset) => asset.key === key && asset.bytes !== null);
  }

  lease(request: SimulatedRequest): SimulatedAnswer {
    const form = formBody(request);
    const fileName = form.get('filepath') ?? '';
    const mimeType = form.get('mimetype') ?? '';
    const extension = leaseTypes[mimeType];
    if (fileName === '' || extension === undefined) {
      // Reddit's refusal of a lease is not documented; this one has its API's 400 shape.
      return { status: 400, body: { message: 'Bad Request', error: 400 } };
    }
    const id = randomBytes(6).toString('hex');
    const key = `${mimeType.startsWith('video/') ? 'rte_videos' : 'rte_images'}/${id}.${extension}`;
    const expiresAt = this.#now() + this.limits.leaseMs;
    const date = new Date(this.#now()).toISOString().replace(/[-:]|\.\d+/g, '');
    const expiration = new Date(expiresAt).toISOString();
    const policy = Buffer.from(JSON.stringify({ expiration, key })).toString('base64');
    const fields = [
      { name: 'acl', value: 'private' },
      { name: 'key', value: key },
      { name: 'X-Amz-Credential', value: `ASIA2SIMULATED/${date.slice(0, 8)}/us-east-1/s3/aws4_request` },
      { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
      { name: 'X-Amz-Date', value: date },
      { name: 'success_action_status', value: '201' },
      { name: 'content-type', value: mimeType },
      { name: 'x-amz-storage-class', value: 'STANDARD' },
      { name: 'x-amz-meta-ext', value: extension },
      { name: 'policy', value: policy },
      { name: 'X-Amz-Signature', value: createHash('sha256').update(policy).digest('hex') },
      { name: 'x-amz-security-token', value: randomBytes(24).toString('base64') },
    ];
    this.#records.assets.push({ id, key, fileName, mimeType, fields, expiresAt, bytes: null });
    const host = URL.parse(this.#origin())?.host ?? '';
    return {
      status: 200,
      body: {
        args: { action: `//${host}${storagePath}`, fields },
        asset: {
          asset_id: id,
          processing_state: 'incomplete',
          payload: { filepath: fileName },
          websocket_url: `wss://ws-simulated.redditmedia.com/${key}?m=AQAA${id}`,
        },
      },
    };
  }

  /** S3's POST object: fields first, the file last, each leased field exactly as handed out. */
  store(request: SimulatedRequest): SimulatedAnswer {
    const type = request.headers['content-type'] ?? '';
    if (request.method !== 'POST' || !type.startsWith('multipart/form-data')) {
      return s3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
    }
    // S3 takes no chunked form upload: the length must be known before the first byte.
    if (request.headers['content-length'] === undefined) {
      return s3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    }
    const entries = multipartParts(request);
    if (entries === null) {
      const message = 'The body of your POST request is not well-formed multipart/form-data.';
      return s3Error(400, 'MalformedPOSTRequest', message);
    }
    const last = entries.at(-1);
    const files = entries.filter((entry) => entry.fileName !== null).length;
    // S3 ignores whatever follows the file, so a field sent after it is as good as missing.
    if (last?.name !== 'file' || last.fileName === null || files !== 1) {
      return s3Error(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
    }
    const fields = new Map(entries.slice(0, -1).map((entry) => [entry.name, entry.data.toString('utf8')]));
    const asset = this.#records.assets.find((item) => item.key === fields.get('key'));
    if (asset === undefined) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed');
    }
    const altered = asset.fields.find((field) => fields.get(field.name) !== field.value);
    if (altered !== undefined) {
      return s3Error(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${altered.name}`);
    }
    if (this.#now() > asset.expiresAt) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
    }
    const bytes = last.data;
    const max = asset.mimeType.startsWith('video/') ? this.limits.videoBytes : this.limits.imageBytes;
    if (bytes.length > max) {
      const sizes = `<ProposedSize>${String(bytes.length)}</ProposedSize>`
        + `<MaxSizeAllowed>${String(max)}</MaxSizeAllowed>`;
      return s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', sizes);
    }
    asset.bytes = bytes;
    const location = `https://reddit-uploaded-media.s3-accelerate.amazonaws.com/${encodeURIComponent(asset.key)}`;
    const etag = createHash('md5').update(bytes).digest('hex');
    return {
      status: 201,
      headers: { 'content-type': 'application/xml', etag: `"${etag}"` },
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<PostResponse>'
        + `<Location>${location}</Location><Bucket>reddit-uploaded-media</Bucket><Key>${asset.key}</Key>`
        + `<ETag>"${etag}"</ETag></PostResponse>`,
    };
  }
}
