import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMedia } from '../../../shared/domain/media/process-media.ts';
import { recordRemoteMedia } from '../../../shared/domain/media/store-media.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { WebhookOutbox } from '../../../shared/domain/webhooks/webhook-outbox.ts';
import { mediaToolsOnPath } from '../../../shared/media/media-tool.ts';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import { createStorage } from '../../../shared/storage/create-storage.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const media = makeTestMedia();

describe('POST /upload-from-url (fetched by the media worker)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let strict: TestContext;
  let strictStack: RunningStack;
  let apiKey: string;
  let strictKey: string;
  let source: Server;
  let origin = '';
  let releaseSlow: () => void = () => undefined;

  beforeAll(async () => {
    source = createServer((request, response) => {
      const files: Record<string, [string, string]> = {
        '/photo.png': [media.png, 'image/png'], '/clip.mp4': [media.mp4, 'video/mp4'],
        '/page.html': [media.html, 'text/html'], '/huge.mp4': [media.mp4, 'video/mp4'],
        '/caf%E9.png': [media.png, 'image/png'],
      };
      if (request.url === '/bad-redirect.png') {
        response.writeHead(302, { Location: 'http://[::1/photo.png' }).end();
        return;
      }
      if (request.url === '/slow.png') {
        response.writeHead(200, { 'Content-Type': 'image/png' });
        response.write(readFileSync(media.png).subarray(0, 10));
        releaseSlow = () => { response.end(readFileSync(media.png).subarray(10)); };
        return;
      }
      const entry = files[request.url ?? ''];
      if (entry === undefined) { response.writeHead(404).end(); return; }
      let body = readFileSync(entry[0]);
      if (request.url === '/huge.mp4') body = Buffer.concat([body, Buffer.alloc(3 * 1024 * 1024)]);
      response.writeHead(200, { 'Content-Type': entry[1] }).end(body);
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;

    ctx = await createTestContext({ MEDIA_WAIT_MS: '5000', MEDIA_MAX_VIDEO_BYTES: String(2 * 1024 * 1024) });
    stack = await startStack(ctx);
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Importer' }));
    // The workers' log keeps the addresses a refused name resolved to; only it may.
    strict = await createTestContext({ ALLOW_PRIVATE_NETWORK: 'false', LOG_LEVEL: 'info' });
    strictStack = await startStack(strict);
    ({ apiKey: strictKey } = await createOrganization(strict.db, strict.secrets, { name: 'Strict' }));
  });
  afterAll(async () => {
    releaseSlow();
    source.closeAllConnections();
    source.close();
    await stack.close();
    await strictStack.close();
    await ctx.cleanup();
    await strict.cleanup();
    rmSync(media.dir, { recursive: true, force: true });
  });

  const importUrl = (url: string, key = apiKey, base = stack.baseUrl) => api(base, key, '/api/public/v1/upload-from-url', { method: 'POST', body: { url } });

  it('fetches an image and answers 201 with the stored media', async () => {
    const response = await importUrl(`${origin}/photo.png`);
    expect(response).toMatchObject({ status: 201, body: { mimeType: 'image/png', width: 64, height: 48, status: 'ready', originalName: 'photo.png' } });
    const copy = await fetch(`${stack.baseUrl}${new URL((response.body as { path: string }).path).pathname}`);
    expect(Buffer.from(await copy.arrayBuffer()).equals(readFileSync(media.png))).toBe(true);
  });

  it('inspects a fetched video like an uploaded one', async () => {
    const response = await importUrl(`${origin}/clip.mp4`);
    expect(response).toMatchObject({ status: 201, body: { mimeType: 'video/mp4', videoCodec: 'h264', audioCodec: 'aac', width: 320 } });
  });

  it('answers 202 with a status URL when the worker needs longer than the wait, and the media becomes ready', async () => {
    const response = await importUrl(`${origin}/slow.png`);
    expect(response).toMatchObject({ status: 202, body: { status: 'pending' } });
    const pending = response.body as { id: string; status: string; statusUrl: string };
    expect(pending).toMatchObject({ status: 'pending', statusUrl: `${ctx.config.BACKEND_URL}/public/v1/media/${pending.id}` });
    const statusPath = new URL(pending.statusUrl).pathname;
    expect((await api(stack.baseUrl, apiKey, statusPath)).body).toMatchObject({ status: 'pending' });
    releaseSlow();
    const ready = await waitFor(async () => {
      const current = await api(stack.baseUrl, apiKey, statusPath);
      return (current.body as { status: string }).status === 'ready' ? current.body : undefined;
    }, { what: 'the slow import to finish' });
    expect(ready).toMatchObject({ id: pending.id, mimeType: 'image/png', width: 64 });
  });

  it.each([
    ['a missing file', '/nothing.png', 'fetch_failed:http_status'],
    ['a page that is not media', '/page.html', 'fetch_failed:unsupported_type'],
    ['a video over the cap', '/huge.mp4', 'fetch_failed:too_large'],
  ])('fails %s with fetch_failed and its reason, records it, and notifies the organization', async (_name, file, reason) => {
    const response = await importUrl(`${origin}${file}`);
    expect(response).toMatchObject({
      status: 422,
      body: {
        statusCode: 422, error: 'fetch_failed', message: expect.stringMatching(/^fetch failed \(/) as string,
        details: [{ path: 'reason', message: reason }],
      },
    });
    const record = await ctx.db.media.findOne({ sourceUrl: `${origin}${file}` }).lean();
    expect(record).toMatchObject({ status: 'failed', errorReason: reason, path: null });
    const notification = await ctx.db.notifications.findOne({ content: { $regex: file.replace('.', '\\.') } }).lean();
    expect(notification?.content).toMatch(/^Media could not be added: the upload from .* failed: fetch failed/);
  });

  it('refuses private and loopback sources and plain http when private networks are not allowed', async () => {
    const plain = await importUrl(`${origin}/photo.png`, strictKey, strictStack.baseUrl);
    expect(plain.body).toMatchObject({ error: 'fetch_failed', details: [{ message: 'fetch_failed:invalid_url' }] });
    for (const url of [`https://localhost:${new URL(origin).port}/photo.png`, 'https://127.0.0.1/photo.png', 'https://[::1]/photo.png', 'https://169.254.169.254/latest']) {
      const blocked = await importUrl(url, strictKey, strictStack.baseUrl);
      expect(blocked.body, url).toMatchObject({ error: 'fetch_failed', details: [{ message: 'fetch_failed:blocked_address' }] });
    }
  });

  it('does not tell the caller the addresses a refused name resolves to, and logs them', async () => {
    const url = `https://localhost:${new URL(origin).port}/private-name.png`;
    const refused = await importUrl(url, strictKey, strictStack.baseUrl);
    expect(refused).toMatchObject({
      status: 422,
      body: {
        error: 'fetch_failed',
        message: 'fetch failed (blocked_address): localhost resolves to a private network address',
        details: [{ path: 'reason', message: 'fetch_failed:blocked_address' }],
      },
    });
    const record = await strict.db.media.findOne({ sourceUrl: url }).lean();
    const statusPath = `/api/public/v1/media/${record?._id.toString() ?? ''}`;
    const seen = await api(strictStack.baseUrl, strictKey, statusPath);
    expect(seen.body).toMatchObject({ status: 'failed', reason: 'fetch_failed:blocked_address' });
    const notification = await strict.db.notifications.findOne({ content: { $regex: 'private-name' } }).lean();
    const told = [JSON.stringify(refused.body), record?.error, JSON.stringify(seen.body), notification?.content];
    for (const text of told) {
      expect(text).toMatch(/private network address/);
      expect(text).not.toMatch(/127\.0\.0\.1|::1/);
    }
    const logged = strict.logLines.filter((line) => line.includes(record?._id.toString() ?? '-'));
    expect(logged.join('\n')).toMatch(/"event":"job\.completed".*localhost resolved to 127\.0\.0\.1/);
  });

  it('keeps a 10.x address out of the failure of a name that resolves there, stored or answered', async () => {
    const inside = await createOrganization(strict.db, strict.secrets, { name: 'Inside' });
    const { organizationId } = inside;
    const media = await recordRemoteMedia(strict.db, organizationId, new URL('https://files.inside.example/a.png'));
    const reports: Error[] = [];
    // The worker's own deps, with DNS played by the test: the name resolves to a private address too.
    const settled = await processMedia({
      db: strict.db, storage: await createStorage(strict.config),
      limits: { maxImageBytes: 1_000, maxVideoBytes: 1_000 },
      fetch: {
        ...connectionPolicyFor(false), resolve: () => Promise.resolve(['203.0.113.9', '10.0.0.8']),
        connectTimeoutMs: 1_000, totalTimeoutMs: 1_000, maxRedirects: 0, userAgent: 'SPS-test',
      },
      mediaToolTimeoutMs: 1_000, mediaTools: mediaToolsOnPath,
      webhooks: new WebhookOutbox({ db: strict.db, logger: strict.logger, now: () => new Date() }),
    }, media._id.toString(), 'import', (error) => { reports.push(error); });
    expect(settled).toMatchObject({
      status: 'failed', errorReason: 'fetch_failed:blocked_address',
      error: 'fetch failed (blocked_address): files.inside.example resolves to a private network address',
    });
    const seen = await api(strictStack.baseUrl, inside.apiKey, `/api/public/v1/media/${media._id.toString()}`);
    expect(seen.body).toMatchObject({ status: 'failed', reason: 'fetch_failed:blocked_address' });
    expect(JSON.stringify([settled, seen.body])).not.toContain('10.0.0.8');
    // What the worker logs: the failure and its causes, the refused address among them.
    const causes = (error: unknown): string[] => (
      error instanceof Error ? [error.message, ...causes(error.cause)] : []
    );
    expect(reports.flatMap(causes).join(' / ')).toContain('files.inside.example resolved to 203.0.113.9, 10.0.0.8');
  });

  it('answers 400 for a body without a usable url, recording nothing', async () => {
    const before = await ctx.db.media.countDocuments({});
    expect(await importUrl('not a url')).toMatchObject({
      status: 400,
      body: {
        statusCode: 400, error: 'validation_failed', message: 'url is not a valid URL',
        details: [{ path: 'url', message: 'not a URL' }],
      },
    });
    const empty = await api(stack.baseUrl, apiKey, '/api/public/v1/upload-from-url', { method: 'POST', body: {} });
    expect(empty).toMatchObject({
      status: 400, body: { statusCode: 400, error: 'validation_failed', details: [{ path: 'url' }] },
    });
    expect(await ctx.db.media.countDocuments({})).toBe(before);
  });

  it('answers 400 for a "%" that starts no encoded byte, wherever it is in the URL', async () => {
    const before = await ctx.db.media.countDocuments({});
    const ends = ['/%E0%A4%A', '/a%zz.png', '/photo.png?size=100%', '/%'];
    const malformed = ends.map((end) => `https://example.com${end}`);
    for (const url of malformed) {
      expect(await importUrl(url), url).toMatchObject({
        status: 400,
        body: {
          statusCode: 400, error: 'validation_failed',
          message: 'url has a "%" that is not followed by two hexadecimal digits',
          details: [{ path: 'url', message: 'malformed percent-encoding' }],
        },
      });
    }
    expect(await ctx.db.media.countDocuments({})).toBe(before);
  });

  it('imports a well-formed URL whose encoded name is not UTF-8, keeping the name as written', async () => {
    const response = await importUrl(`${origin}/caf%E9.png`);
    expect(response).toMatchObject({
      status: 201, body: { mimeType: 'image/png', status: 'ready', originalName: 'caf%E9.png' },
    });
  });

  it('fails with fetch_failed when the source redirects to something that is not a URL', async () => {
    const response = await importUrl(`${origin}/bad-redirect.png`);
    expect(response).toMatchObject({
      status: 422,
      body: {
        error: 'fetch_failed',
        message: expect.stringMatching(/redirected to an address that is not a valid URL$/) as string,
        details: [{ path: 'reason', message: 'fetch_failed:invalid_url' }],
      },
    });
    const record = await ctx.db.media.findOne({ sourceUrl: `${origin}/bad-redirect.png` }).lean();
    expect(record).toMatchObject({ status: 'failed', errorReason: 'fetch_failed:invalid_url' });
  });
});
