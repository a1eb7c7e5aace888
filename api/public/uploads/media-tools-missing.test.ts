import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { makeTestMedia } from '../../../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const media = makeTestMedia();

/**
 * A server without ffprobe (or ffmpeg) cannot inspect uploads. The user's file is fine, so the
 * answer is 503 media_inspection_unavailable naming the missing tool, never a 4xx about the file.
 */
describe.each([
  ['ffprobe', { FFPROBE_PATH: '/nonexistent/bin/ffprobe' }, media.png],
  ['ffmpeg', { FFMPEG_PATH: '/nonexistent/bin/ffmpeg' }, media.mp4],
])('uploads on a server without %s', (tool, env, file) => {
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

  it('answers 503 media_inspection_unavailable, names the missing tool, and keeps no half-made media', async () => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), file.split('/').at(-1));
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, {
      method: 'POST', body: form, headers: { Authorization: apiKey },
    });
    const body = await response.json() as { error: string; message: string };
    expect(response.status).toBe(503);
    expect(body.error).toBe('media_inspection_unavailable');
    expect(body.message).toContain(`${tool} is not installed on this server`);
    const stored = await ctx.db.media.findOne({}).lean();
    expect(stored).toMatchObject({ status: 'failed', errorReason: 'media_inspection_unavailable', storageKey: null });
  });
});

afterAll(() => {
  rmSync(media.dir, { recursive: true, force: true });
});
