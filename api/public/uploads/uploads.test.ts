import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteMedia } from '../../../shared/domain/media/store-media.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { createStorage } from '../../../shared/storage/create-storage.ts';
import { api } from '../../../test/support/fixtures.ts';
import { RawUpload, pngHead } from '../../../test/support/raw-upload.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

interface Media { id: string; path: string; thumbnail: string | null; mimeType: string; size: number; width?: number; height?: number; durationSeconds?: number; videoCodec?: string; audioCodec?: string; status: string; originalName: string | null }

const media = makeTestMedia();

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((entry) => statSync(path.join(dir, entry)).isFile());
}

describe('POST /upload and the served files', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;

  beforeAll(async () => {
    ctx = await createTestContext({ MEDIA_MAX_IMAGE_BYTES: String(200 * 1024), MEDIA_MAX_VIDEO_BYTES: String(2 * 1024 * 1024) });
    stack = await startStack(ctx);
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Uploader' }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    rmSync(media.dir, { recursive: true, force: true });
  });

  async function upload(file: string, name = path.basename(file), key: string | null = apiKey): Promise<{ status: number; body: unknown; headers: Headers }> {
    const form = new FormData();
    form.append('note', 'ignored field');
    form.append('file', new Blob([readFileSync(file)]), name);
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, { method: 'POST', body: form, headers: key === null ? {} : { Authorization: key } });
    return { status: response.status, body: await response.json(), headers: response.headers };
  }
  const served = (url: string, headers: Record<string, string> = {}) => fetch(`${stack.baseUrl}${new URL(url).pathname}`, { headers });

  it.each([
    ['PNG', media.png, 'image/png'], ['JPEG', media.jpeg, 'image/jpeg'], ['GIF', media.gif, 'image/gif'], ['WebP', media.webp, 'image/webp'],
  ])('stores a %s under a dated random name and answers 201 with its size and dimensions', async (_name, file, mimeType) => {
    const response = await upload(file, 'holiday photo.bin');
    expect(response.status).toBe(201);
    const stored = response.body as Media;
    expect(stored).toMatchObject({ mimeType, size: statSync(file).size, width: 64, height: 48, status: 'ready', originalName: 'holiday photo.bin', thumbnail: null });
    expect(new URL(stored.path).pathname).toMatch(/^\/uploads\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.(png|jpg|gif|webp)$/);
    const copy = await served(stored.path);
    expect(copy.status).toBe(200);
    expect(Buffer.from(await copy.arrayBuffer()).equals(readFileSync(file))).toBe(true);
  });

  it('inspects an MP4 with ffprobe, stores a JPEG poster frame, and serves byte ranges with safe headers', async () => {
    const response = await upload(media.mp4);
    expect(response.status).toBe(201);
    const stored = response.body as Media;
    expect(stored).toMatchObject({ mimeType: 'video/mp4', width: 320, height: 240, videoCodec: 'h264', audioCodec: 'aac', status: 'ready' });
    expect(stored.durationSeconds).toBeGreaterThan(1.9);
    expect(stored.durationSeconds).toBeLessThan(2.2);
    const record = await ctx.db.media.findById(stored.id).lean();
    expect(record).toMatchObject({ videoProfile: 'Main', frameRate: 30 });
    expect(record?.bitRate).toBeGreaterThan(0);

    const poster = await served(stored.thumbnail ?? '');
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await poster.arrayBuffer()).subarray(0, 3).toString('hex')).toBe('ffd8ff');

    const whole = readFileSync(media.mp4);
    const full = await served(stored.path);
    expect(full.headers.get('x-content-type-options')).toBe('nosniff');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(full.headers.get('content-type')).toBe('video/mp4');
    await full.arrayBuffer();
    const part = await served(stored.path, { Range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(100, 200))).toBe(true);
    const tail = await served(stored.path, { Range: 'bytes=-10' });
    expect(Buffer.from(await tail.arrayBuffer()).equals(whole.subarray(whole.length - 10))).toBe(true);
    const beyond = await served(stored.path, { Range: `bytes=${whole.length + 5}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
  });

  it('marks an unreadable video failed with "Failed to load video metadata" and keeps no file', async () => {
    const before = filesUnder(ctx.config.UPLOADS_DIR).length;
    const response = await upload(media.truncatedMp4);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error: 'unreadable_media', message: 'Failed to load video metadata' });
    const failed = await ctx.db.media.findOne({ status: 'failed', originalName: 'truncated.mp4' }).lean();
    expect(failed).toMatchObject({ error: 'Failed to load video metadata', errorReason: 'unreadable_media', path: null });
    expect(filesUnder(ctx.config.UPLOADS_DIR).length).toBe(before);
  });

  it('refuses a PDF with the spec\'s reason, and other content as unsupported, whatever the file is called', async () => {
    const pdf = await upload(media.pdf, 'slides.png');
    expect(pdf).toMatchObject({ status: 415, body: { error: 'unsupported_file_type' } });
    expect((pdf.body as { message: string }).message).toMatch(/PDFs cannot be posted through the public API/);
    for (const file of [media.executableAsPng, media.html, media.svg, media.vp9Webm]) {
      const refused = await upload(file);
      expect(refused.status, file).toBe(415);
      expect(refused.body).toMatchObject({ statusCode: 415, error: 'unsupported_file_type' });
    }
  });

  it('cuts an upload off at its kind\'s cap, answers 413 with the limit, and leaves no partial file', async () => {
    const before = filesUnder(ctx.config.UPLOADS_DIR).length;
    const bigPng = Buffer.concat([readFileSync(media.png), Buffer.alloc(300 * 1024)]);
    const form = new FormData();
    form.append('file', new Blob([bigPng]), 'big.png');
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, { method: 'POST', body: form, headers: { Authorization: apiKey } });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      statusCode: 413, error: 'payload_too_large', message: 'the image is larger than the 0.2 MB allowed for images',
    });
    expect(filesUnder(ctx.config.UPLOADS_DIR).length).toBe(before);
    expect(await ctx.db.media.countDocuments({ originalName: 'big.png' })).toBe(0);
  });

  it('refuses a body whose declared length is over every cap before reading it', async () => {
    const answer = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const request = httpRequest(`${stack.baseUrl}/api/public/v1/upload`, {
        method: 'POST',
        headers: { Authorization: apiKey, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(50 * 1024 * 1024) },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          request.destroy();
        });
      });
      request.on('error', reject);
      request.write('--x\r\n');
    });
    expect(answer).toEqual({
      status: 413,
      body: {
        statusCode: 413, error: 'payload_too_large', message: 'the upload is larger than the 2 MB allowed for videos',
      },
    });
  });

  it('answers 400 for a body that ends in the middle of the file, where busboy fails the stream early', async () => {
    const file = Buffer.concat([pngHead, Buffer.alloc(200)]);
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: file.length, finalBoundary: false });
    await upload.write(file);
    const answered = () => (upload.answer().status === null ? undefined : upload.answer());
    const answer = await waitFor(answered, { what: 'the answer' });
    upload.socket.destroy();
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      statusCode: 400, error: 'validation_failed',
      message: 'the multipart body could not be read: Unexpected end of form',
    });
  });

  it('answers 400 without a file field and 415 for a non-multipart body', async () => {
    const form = new FormData();
    form.append('other', new Blob([readFileSync(media.png)]), 'a.png');
    const noFile = await fetch(`${stack.baseUrl}/api/public/v1/upload`, { method: 'POST', body: form, headers: { Authorization: apiKey } });
    expect(noFile.status).toBe(400);
    expect(await noFile.json()).toMatchObject({ error: 'validation_failed', details: [{ path: 'file' }] });
    const json = await api(stack.baseUrl, apiKey, '/api/public/v1/upload', { method: 'POST', body: { file: 'base64...' } });
    expect(json).toMatchObject({
      status: 415,
      body: {
        statusCode: 415, error: 'unsupported_media_type',
        message: 'send multipart/form-data with the file in field "file"',
      },
    });
  });

  it('GET /media/:id shows a ready media; other organizations and unknown ids get 404', async () => {
    const stored = (await upload(media.png)).body as Media;
    expect(await api(stack.baseUrl, apiKey, `/api/public/v1/media/${stored.id}`)).toMatchObject({ status: 200, body: { id: stored.id, status: 'ready', width: 64 } });
    const other = await createOrganization(ctx.db, ctx.secrets, { name: 'Other' });
    expect(await api(stack.baseUrl, other.apiKey, `/api/public/v1/media/${stored.id}`))
      .toMatchObject({ status: 404, body: { error: 'not_found', message: `media "${stored.id}" was not found` } });
    const unknown = new Types.ObjectId().toString();
    expect(await api(stack.baseUrl, apiKey, `/api/public/v1/media/${unknown}`))
      .toMatchObject({ status: 404, body: { error: 'not_found', message: `media "${unknown}" was not found` } });
  });

  it('deletes the stored file and poster frame with the media record', async () => {
    const stored = (await upload(media.mp4)).body as Media;
    const record = await ctx.db.media.findById(stored.id).lean();
    const files = [record?.storageKey, record?.thumbnailKey].map((key) => path.join(ctx.config.UPLOADS_DIR, key ?? 'missing'));
    for (const file of files) expect(statSync(file).isFile()).toBe(true);
    await deleteMedia({ db: ctx.db, storage: await createStorage(ctx.config) }, record?.organizationId.toString() ?? '', stored.id);
    for (const file of files) expect(() => statSync(file)).toThrow(/ENOENT/);
    const gone = await served(stored.path);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error: 'not_found' });
    expect(await api(stack.baseUrl, apiKey, `/api/public/v1/media/${stored.id}`))
      .toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('checks a post\'s uploaded video against each channel\'s platform, stating the recommended format', async () => {
    const hevc = (await upload(media.hevcMp4)).body as Media;
    expect(hevc).toMatchObject({ videoCodec: 'hevc', width: 1080, height: 1920 });
    const organization = await ctx.db.organizations.findOne({}).lean();
    const channel = (provider: string) => ctx.db.channels.create({ organizationId: organization?._id, provider, name: `${provider} channel`, tokenSealed: ctx.secrets.seal('t') });
    const [x, mastodon] = await Promise.all([channel('x'), channel('mastodon')]);
    const post = (channelId: string) => api(stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'schedule', date: new Date(Date.now() + 86_400_000).toISOString(), posts: [{ integration: { id: channelId }, value: [{ content: 'clip', image: [{ id: hevc.id, path: hevc.path }] }] }] },
    });
    const refused = await post(x._id.toString());
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ details: [{ path: 'posts.0.value.0.image.0', message: expect.stringMatching(/^X channel "x channel": the video does not suit X: its hevc video is not accepted\. Recommended: /) as string }] });
    expect((refused.body as { message: string }).message).toMatch(/Recommended: MP4, H\.264 baseline or main profile, AAC audio, 30 fps or less, at most 1920x1080/);
    const accepted = await post(mastodon._id.toString());
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject([{ integration: mastodon._id.toString() }]);
  });

  it('serves only keys it made: no traversal, no other files', async () => {
    for (const attempt of ['/uploads/..%2F..%2Fpackage.json', '/uploads/2026/01/01/..%2F..%2F..%2Fsecrets.key', '/uploads/2026/01/01/notours.png', '/uploads/2026/01/01/0123456789abcdef0123456789abcdef.exe']) {
      const response = await fetch(`${stack.baseUrl}${attempt}`);
      expect(response.status, attempt).toBe(404);
      expect(await response.json(), attempt).toMatchObject({ statusCode: 404, error: 'not_found' });
    }
  });
});
