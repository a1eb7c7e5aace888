import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NotFound, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeObjectKey } from './object-key.ts';
import { uploadInParts } from './s3-part-upload.ts';
import type { Storage, StoredObject } from './storage.ts';
import { trailingSlashes } from '../net/trailing-slashes.ts';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** Custom endpoint for S3-compatible servers (MinIO...); unset for AWS. */
  endpoint?: string | undefined;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addressing, which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Base URL the bucket's objects are publicly served from. */
  publicBaseUrl: string;
}

/** Multipart parts of 8 MiB, two in flight: 24 MiB of part buffers whatever the file size. */
const partUploads = { partSize: 8 * 1024 * 1024, partsInFlight: 2 };

export class S3Storage implements Storage {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #publicBaseUrl: string;

  constructor(options: S3StorageOptions) {
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      forcePathStyle: options.forcePathStyle,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    });
    this.#bucket = options.bucket;
    this.#publicBaseUrl = options.publicBaseUrl.replace(trailingSlashes, '');
  }

  async put(key: string, body: Readable, options: { contentType?: string } = {}): Promise<StoredObject> {
    assertSafeObjectKey(key);
    const target = { bucket: this.#bucket, key, contentType: options.contentType };
    const size = await uploadInParts(this.#client, target, body, partUploads);
    return { key, size, url: this.publicUrl(key) };
  }

  async get(key: string): Promise<Readable> {
    assertSafeObjectKey(key);
    const response = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
    return response.Body as Readable;
  }

  async delete(key: string): Promise<void> {
    assertSafeObjectKey(key);
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    assertSafeObjectKey(key);
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return false;
      throw error;
    }
  }

  publicUrl(key: string): string {
    assertSafeObjectKey(key);
    return `${this.#publicBaseUrl}/${key}`;
  }

  /** A short-lived signed URL, so ffprobe can read the object without it being public. */
  async readableLocation(key: string): Promise<string> {
    assertSafeObjectKey(key);
    return getSignedUrl(this.#client, new GetObjectCommand({ Bucket: this.#bucket, Key: key }), { expiresIn: 900 });
  }
}
