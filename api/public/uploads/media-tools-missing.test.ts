import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const media = makeTestMedia();

/**
 * A PNG whose header declares a width of zero: the sniffer still sees a PNG, but its size cannot be
 * read from the header, so the worker asks ffprobe, as for any image whose header it cannot read.
 */
const zeroWidthPng = path.join(media.dir, 'zero-width.png');
const png = Buffer.from(readFileSync(media.png));
// IHDR's width follows the signature (8 bytes), the chunk's length (4) and its type (4).
png.writeUInt32BE(0, 16);
writeFileSync(zeroWidthPng, png);

async function upload(baseUrl: string, apiKey: string, file: string): Promise<{ status: number; body: unknown }> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  const response = await fetch(`${baseUrl}/api/public/v1/upload`, {
    method: 'POST', body: form, headers: { Authorization: apiKey },
  });
  return { status: response.status, body: await response.json() };
}

/**
 * A server without ffprobe (or ffmpeg) cannot inspect videos, nor images whose header does not
 * say their size. The user's file is fine, so the answer is 503 media_inspection_unavailable
 * naming the missing tool, never a 4xx about the file. An image whose header says its size needs
 * neither tool.
 */
describe.each([
  ['ffprobe', { FFPROBE_PATH: '/nonexistent/bin/ffprobe' }, [media.mp4, zeroWidthPng]],
  ['ffmpeg', { FFMPEG_PATH: '/nonexistent/bin/ffmpeg' }, [media.mp4]],
])('uploads on a server without %s', (tool, env, uninspectable) => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;

  beforeAll(async () => {
    ctx = await createTestContext(env);
    stack = await startStack(ctx);
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: `Without ${tool}` }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('makes an image whose header says its size ready, with its dimensions, without the tool', async () => {
    const response = await upload(stack.baseUrl, apiKey, media.png);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ mimeType: 'image/png', width: 64, height: 48, status: 'ready' });
  });

  it.each(uninspectable.map((file) => [path.basename(file), file]))(
    'answers 503 media_inspection_unavailable for %s, names the missing tool, and keeps no half-made media',
    async (name, file) => {
      const response = await upload(stack.baseUrl, apiKey, file);
      const body = response.body as { error: string; message: string };
      expect(response.status).toBe(503);
      expect(body.error).toBe('media_inspection_unavailable');
      expect(body.message).toContain(`${tool} is not installed on this server`);
      const stored = await ctx.db.media.findOne({ originalName: name }).lean();
      expect(stored).toMatchObject({
        status: 'failed', errorReason: 'media_inspection_unavailable', storageKey: null,
      });
    },
  );
});

afterAll(() => {
  rmSync(media.dir, { recursive: true, force: true });
});
