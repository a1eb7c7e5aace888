import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CreateBucketCommand, HeadObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type RunningS3Server } from '../../scripts/local/s3-server.ts';
import { freePort } from '../../test/support/free-port.ts';
import { makeTestMedia } from '../../test/support/test-media.ts';
import { deleteMedia } from '../domain/media/store-media.ts';
import { createOrganization } from '../domain/organizations/organizations.ts';
import { probeMedia } from '../media/media-probe.ts';
import { RawUpload, mp4Head } from '../../test/support/raw-upload.ts';
import { startStack, waitFor } from '../../test/support/stack.ts';
import { createTestContext } from '../../test/support/test-context.ts';
import { newObjectKey } from './object-key.ts';
import { S3Storage } from './s3-storage.ts';

const bucket = 'sps-media';
const media = makeTestMedia();

describe('S3Storage against a real S3-compatible server', () => {
  let server: RunningS3Server;
  let storage: S3Storage;
  let client: S3Client;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sps-s3-'));
    server = await startS3Server({ port: await freePort(), dataDir, logFile: path.join(dataDir, 'versitygw.log') }, () => undefined);
    client = new S3Client({ region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true, credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey } });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    storage = new S3Storage({ bucket, region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey, publicBaseUrl: `https://cdn.example.com/${bucket}/` });
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(media.dir, { recursive: true, force: true });
  });

  /** The environment of an api and workers that store in this server's bucket. */
  function s3Settings(): Record<string, string> {
    return {
      STORAGE_DRIVER: 's3', S3_BUCKET: bucket, S3_ENDPOINT: server.endpoint, S3_ACCESS_KEY_ID: server.accessKeyId,
      S3_SECRET_ACCESS_KEY: server.secretAccessKey, S3_PUBLIC_URL: `https://cdn.example.com/${bucket}`,
    };
  }

  async function openMultipartUploadsBecome(count: number): Promise<void> {
    const reached = async () => {
      const uploads = (await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }))).Uploads ?? [];
      return uploads.length === count ? true : undefined;
    };
    await waitFor(reached, { what: `${count} open multipart upload(s) in the bucket` });
  }

  it('stores, reads, checks and deletes an object, and names its public URL', async () => {
    const key = newObjectKey('png');
    const stored = await storage.put(key, Readable.from([readFileSync(media.png)]), { contentType: 'image/png' });
    expect(stored).toEqual({ key, size: readFileSync(media.png).length, url: `https://cdn.example.com/${bucket}/${key}` });
    expect(await storage.exists(key)).toBe(true);
    expect((await buffer(await storage.get(key))).equals(readFileSync(media.png))).toBe(true);
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentType).toBe('image/png');
    await storage.delete(key);
    expect(await storage.exists(key)).toBe(false);
  });

  it('streams a large object as a multipart upload', async () => {
    const key = newObjectKey('mp4');
    const chunk = Buffer.alloc(1024 * 1024, 7);
    function* twentyMegabytes(): Generator<Buffer> {
      for (let index = 0; index < 20; index += 1) yield chunk;
    }
    const stored = await storage.put(key, Readable.from(twentyMegabytes()), { contentType: 'video/mp4' });
    expect(stored.size).toBe(20 * 1024 * 1024);
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(20 * 1024 * 1024);
    // Objects made from parts carry an ETag with the part count.
    expect(head.ETag).toMatch(/-3"$/);
    await storage.delete(key);
  });

  it('keeps every byte in order across reused part buffers, chunks of odd sizes, and part-size edges', async () => {
    const sizes = [0, 8 * 1024 * 1024, 2 * 8 * 1024 * 1024, 2 * 8 * 1024 * 1024 + 123_457];
    for (const size of sizes) {
      const content = randomBytes(size);
      function* oddChunks(): Generator<Buffer> {
        for (let offset = 0; offset < size; offset += 777_777) yield content.subarray(offset, offset + 777_777);
      }
      const key = newObjectKey('mp4');
      const stored = await storage.put(key, Readable.from(oddChunks()), { contentType: 'video/mp4' });
      expect(stored.size).toBe(size);
      expect((await buffer(await storage.get(key))).equals(content)).toBe(true);
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      expect(head.ContentType).toBe('video/mp4');
      await storage.delete(key);
    }
    await openMultipartUploadsBecome(0);
  });

  it('leaves neither an object nor an open multipart upload when the source fails', async () => {
    const key = newObjectKey('mp4');
    function* failing(): Generator<Buffer> {
      for (let index = 0; index < 10; index += 1) yield Buffer.alloc(1024 * 1024);
      throw new Error('client went away');
    }
    await expect(storage.put(key, Readable.from(failing()))).rejects.toThrow(/client went away/);
    expect(await storage.exists(key)).toBe(false);
    const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  it('gives ffprobe a signed URL it can read the object from', async () => {
    const key = newObjectKey('mp4');
    await storage.put(key, Readable.from([readFileSync(media.mp4)]), { contentType: 'video/mp4' });
    const location = await storage.readableLocation(key);
    expect(location).toMatch(/X-Amz-Signature=/);
    const probe = await probeMedia(location, { timeoutMs: 30_000 });
    expect(probe).toMatchObject({ videoCodec: 'h264', audioCodec: 'aac', width: 320, height: 240 });
    await storage.delete(key);
  });

  it('carries the whole media pipeline when it is the configured driver: upload, inspect, poster, delete', async () => {
    const ctx = await createTestContext(s3Settings());
    const stack = await startStack(ctx);
    try {
      const { apiKey, organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'S3 user' });
      const form = new FormData();
      form.append('file', new Blob([readFileSync(media.mp4)]), 'clip.mp4');
      const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, { method: 'POST', body: form, headers: { Authorization: apiKey } });
      expect(response.status).toBe(201);
      const uploaded = await response.json() as { id: string; path: string; thumbnail: string; videoCodec: string };
      expect(uploaded.videoCodec).toBe('h264');
      expect(uploaded.path).toMatch(new RegExp(`^https://cdn\\.example\\.com/${bucket}/\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}\\.mp4$`));
      const keys = [uploaded.path, uploaded.thumbnail].map((url) => url.replace(`https://cdn.example.com/${bucket}/`, ''));
      for (const key of keys) expect(await storage.exists(key)).toBe(true);
      await deleteMedia({ db: ctx.db, storage }, organizationId, uploaded.id);
      for (const key of keys) expect(await storage.exists(key)).toBe(false);
      expect(await ctx.db.media.countDocuments({ _id: uploaded.id })).toBe(0);
    } finally {
      await stack.close();
      await ctx.cleanup();
    }
  });

  const interruptions: [string, Record<string, string>][] = [
    ['the client disconnects', {}],
    ['the request timeout passes', { HTTP_REQUEST_TIMEOUT_MS: '5000' }],
  ];
  it.each(interruptions)('aborts the multipart upload of a POST /upload when %s mid-file', async (_case, overrides) => {
    const ctx = await createTestContext({ ...s3Settings(), ...overrides });
    const stack = await startStack(ctx);
    try {
      const { apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'S3 leaver' });
      const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 64 * 1024 * 1024 });
      await upload.write(mp4Head);
      // Past the first 8 MiB part: the multipart upload exists and holds a part.
      for (let sent = 0; sent < 12 * 1024 * 1024; sent += 1024 * 1024) await upload.write(Buffer.alloc(1024 * 1024));
      await openMultipartUploadsBecome(1);
      if (overrides.HTTP_REQUEST_TIMEOUT_MS === undefined) upload.socket.destroy();
      await upload.closed;
      if (overrides.HTTP_REQUEST_TIMEOUT_MS !== undefined) expect(upload.answer()).toMatchObject({ status: 408 });
      await openMultipartUploadsBecome(0);
      expect(await ctx.db.media.countDocuments({})).toBe(0);
    } finally {
      await stack.close();
      await ctx.cleanup();
    }
  });

  it('refuses keys it did not make', async () => {
    await expect(storage.exists('../other-bucket/x')).rejects.toThrow(/invalid storage key/);
  });
});
