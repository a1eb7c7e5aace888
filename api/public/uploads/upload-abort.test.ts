import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { RawUpload, pngHead } from '../../../test/support/raw-upload.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

/** Files under the uploads folder, with their paths relative to it. */
function storedFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/** Files under `dir` this process holds open (the api runs in the test's process). */
function openFilesUnder(dir: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir)) open.push(target);
    } catch (error) {
      // The descriptor readdir itself used is closed by now.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return open;
}

interface LogLine { event?: string; path?: string; status?: number; method?: string }

function logged(ctx: TestContext): LogLine[] {
  return ctx.logLines.map((line) => JSON.parse(line) as LogLine);
}

/** The api's line for a finished POST /upload: the handler settled. */
function uploadsCompleted(ctx: TestContext): LogLine[] {
  return logged(ctx).filter((line) => line.event === 'request.completed' && line.path === '/api/public/v1/upload');
}

/** Waits for the log line of the `index`th upload request of this context to finish. */
function uploadSettled(ctx: TestContext, index: number): Promise<LogLine> {
  return waitFor(() => uploadsCompleted(ctx).at(index), { what: 'the upload handler to settle' });
}

function partialFileAppears(ctx: TestContext): Promise<string> {
  const partial = () => storedFiles(ctx.config.UPLOADS_DIR).find((file) => file.endsWith('.partial'));
  return waitFor(partial, { what: 'the partial file' });
}

async function uploadsFolderEmpties(ctx: TestContext): Promise<void> {
  const empty = () => (storedFiles(ctx.config.UPLOADS_DIR).length === 0 ? true : undefined);
  await waitFor(empty, { what: 'the partial file to go' });
}

describe('POST /upload whose connection closes before the file is complete', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  let timing: TestContext;
  let timingStack: RunningStack;
  let timingKey: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'info' });
    stack = await startStack(ctx);
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Leaver' }));
    // Node enforces the request timeout from a periodic check (a quarter of it here): wide margins.
    timing = await createTestContext({ LOG_LEVEL: 'info', HTTP_REQUEST_TIMEOUT_MS: '2000' });
    timingStack = await startStack(timing);
    ({ apiKey: timingKey } = await createOrganization(timing.db, timing.secrets, { name: 'Slow sender' }));
  });
  afterAll(async () => {
    await stack.close();
    await timingStack.close();
    await ctx.cleanup();
    await timing.cleanup();
  });

  it('settles, closes and removes the partial file, and records no media when the client leaves mid-file', async () => {
    const before = uploadsCompleted(ctx).length;
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 5 * 1024 * 1024 });
    await upload.write(pngHead);
    await upload.write(Buffer.alloc(1024 * 1024));
    // The file is being written: a partial file exists and is held open.
    const partial = await partialFileAppears(ctx);
    expect(openFilesUnder(ctx.config.UPLOADS_DIR)).toEqual([path.join(ctx.config.UPLOADS_DIR, partial)]);

    upload.socket.destroy();
    expect(await uploadSettled(ctx, before)).toMatchObject({ method: 'POST', status: 400 });
    expect(logged(ctx).filter((line) => line.event === 'upload.interrupted')).toHaveLength(1);
    await uploadsFolderEmpties(ctx);
    expect(openFilesUnder(ctx.config.UPLOADS_DIR)).toEqual([]);
    expect(await ctx.db.media.countDocuments({})).toBe(0);
  });

  it('settles when the client disconnects before the file part has begun', async () => {
    const before = uploadsCompleted(ctx).length;
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 1024 * 1024 });
    // Only the part header went out: the handler is waiting for the file to begin.
    upload.socket.destroy();
    expect(await uploadSettled(ctx, before)).toMatchObject({ status: 400 });
    expect(storedFiles(ctx.config.UPLOADS_DIR)).toEqual([]);
    expect(await ctx.db.media.countDocuments({})).toBe(0);
  });

  it('answers 408 in JSON when the request timeout passes mid-file, and cleans up as for a disconnect', async () => {
    const upload = await RawUpload.open(timingStack.baseUrl, timingKey, { fileBytes: 5 * 1024 * 1024 });
    await upload.write(pngHead);
    await upload.write(Buffer.alloc(512 * 1024));
    await partialFileAppears(timing);
    // The client holds the connection open and sends nothing more: the server ends it.
    await upload.closed;
    const answer = upload.answer();
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      statusCode: 408, error: 'request_timeout', message: 'the whole request did not arrive within 2000 ms',
    });
    expect(await uploadSettled(timing, 0)).toMatchObject({ status: 400 });
    await uploadsFolderEmpties(timing);
    expect(openFilesUnder(timing.config.UPLOADS_DIR)).toEqual([]);
    expect(await timing.db.media.countDocuments({})).toBe(0);
  });
});
