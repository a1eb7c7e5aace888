import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { RawUpload, pngHead, type RawAnswer } from '../../../test/support/raw-upload.ts';
import { startStack, waitFor, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { refusedUploadDrain } from './refused-upload-drain.ts';

const imageCap = 200 * 1024;
const chunk = Buffer.alloc(64 * 1024);

async function sendFile(upload: RawUpload, fileBytes: number, stopWhen: () => boolean = () => false): Promise<void> {
  await upload.write(pngHead);
  for (let sent = pngHead.length; sent < fileBytes && !stopWhen(); sent += chunk.length) {
    await upload.write(chunk.subarray(0, Math.min(chunk.length, fileBytes - sent)));
  }
}

function answered(upload: RawUpload): Promise<RawAnswer> {
  return waitFor(() => (upload.answer().status === null ? undefined : upload.answer()), { what: 'the answer' });
}

describe('POST /upload refused while the client is still sending', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;

  beforeAll(async () => {
    ctx = await createTestContext({ LOG_LEVEL: 'info', MEDIA_MAX_IMAGE_BYTES: String(imageCap) });
    stack = await startStack(ctx);
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Oversender' }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const refusal = {
    statusCode: 413, error: 'payload_too_large', message: 'the image is larger than the 0.2 MB allowed for images',
  };

  it.each([1, 2, 3, 4, 5])('lets a client that sends all 12 MB before reading see the 413 (run %i)', async () => {
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 12 * 1024 * 1024, read: false });
    // Without the server reading the rest, these writes fail once it closes (ECONNRESET, EPIPE).
    await sendFile(upload, 12 * 1024 * 1024);
    await upload.write(RawUpload.tail);
    upload.startReading();
    const answer = await answered(upload);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(refusal);
    expect(upload.error).toBeNull();
    // The whole body was read, so the connection is still good for another request.
    expect(upload.socket.destroyed).toBe(false);
    upload.socket.destroy();
  });

  it.each([1, 2, 3])('lets a client that reads while it sends see the 413 and stop (run %i)', async () => {
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 12 * 1024 * 1024 });
    await sendFile(upload, 12 * 1024 * 1024, () => upload.answer().status !== null);
    const answer = await answered(upload);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(refusal);
    expect(upload.error).toBeNull();
    expect(upload.sentBytes).toBeLessThan(12 * 1024 * 1024);
    upload.socket.destroy();
  });

  it('reads no more than its bound of a refused body, then closes the connection', async () => {
    const drainedBefore = ctx.logLines.length;
    const upload = await RawUpload.open(stack.baseUrl, apiKey, { fileBytes: 200 * 1024 * 1024, read: false });
    // The server closing the connection reaches a writing client as any of these, by timing.
    await expect(sendFile(upload, 200 * 1024 * 1024)).rejects.toThrow(/EPIPE|ECONNRESET|ECANCELED/);
    // What the connection took: the server's bound plus what the two socket buffers held.
    expect(upload.sentBytes).toBeGreaterThan(refusedUploadDrain.maxBytes);
    expect(upload.sentBytes).toBeLessThan(refusedUploadDrain.maxBytes + 32 * 1024 * 1024);
    const drained = ctx.logLines.slice(drainedBefore)
      .map((line) => JSON.parse(line) as { event?: string; limit?: string; drainedBytes?: number })
      .find((line) => line.event === 'upload.drained');
    expect(drained).toMatchObject({ limit: 'bytes' });
    expect(drained?.drainedBytes).toBeGreaterThan(refusedUploadDrain.maxBytes);
  });
});
