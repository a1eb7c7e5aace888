import { createReadStream, readFileSync, rmSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { makeTestMedia } from '../../test/support/test-media.ts';
import { sniffMedia } from './sniff-media.ts';

const media = makeTestMedia();
const roomy = { maxImageBytes: 10 * 1024 * 1024, maxVideoBytes: 100 * 1024 * 1024 };

async function refusal(file: string, limits = roomy): Promise<DomainError> {
  const error: unknown = await sniffMedia(createReadStream(file), limits).then(async (sniffed) => buffer(sniffed.stream)).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('sniffMedia', () => {
  afterAll(() => { rmSync(media.dir, { recursive: true, force: true }); });

  it.each([
    ['png', media.png, 'image/png', 'image'], ['jpeg', media.jpeg, 'image/jpeg', 'image'], ['gif', media.gif, 'image/gif', 'image'],
    ['webp', media.webp, 'image/webp', 'image'], ['mp4', media.mp4, 'video/mp4', 'video'], ['hevc mp4', media.hevcMp4, 'video/mp4', 'video'],
  ])('recognises %s from its bytes and passes every byte through once', async (_name, file, mimeType, kind) => {
    const sniffed = await sniffMedia(createReadStream(file, { highWaterMark: 1024 }), roomy);
    expect(sniffed.type).toMatchObject({ mimeType, kind });
    const bytes = await buffer(sniffed.stream);
    expect(bytes.equals(readFileSync(file))).toBe(true);
    expect(sniffed.bytesRead()).toBe(bytes.length);
  });

  it('refuses a PDF, saying PDFs cannot be posted through the public API', async () => {
    const error = await refusal(media.pdf);
    expect(error.code).toBe('unsupported_file_type');
    expect(error.message).toMatch(/PDFs cannot be posted through the public API/);
  });

  it.each([
    ['an executable named .png', media.executableAsPng, /its content is application\/x-elf/],
    ['HTML named .png', media.html, /could not be recognised/],
    ['SVG', media.svg, /could not be recognised/],
    ['VP9 in WebM', media.vp9Webm, /its content is video\/webm/],
  ])('refuses %s as unsupported', async (_name, file, message) => {
    const error = await refusal(file);
    expect(error.code).toBe('unsupported_file_type');
    expect(error.message).toMatch(message);
  });

  it('reports the error of a source that failed before it was handed over, instead of waiting for it', async () => {
    const failed = new PassThrough();
    failed.on('error', () => undefined);
    failed.destroy(
      new DomainError('validation_failed', 'the multipart body could not be read: Unexpected end of form'),
    );
    await new Promise((resolve) => { failed.once('close', resolve); });
    await expect(sniffMedia(failed, roomy)).rejects.toMatchObject({
      code: 'validation_failed', message: /Unexpected end of form/,
    });
  });

  it('refuses an empty file', async () => {
    await expect(sniffMedia(Readable.from([]), roomy)).rejects.toThrow(/empty/);
  });

  it('cuts off an image or a video as soon as it passes its kind\'s cap, and stops reading the source', async () => {
    const image = await refusal(media.png, { maxImageBytes: 100, maxVideoBytes: 10_000_000 });
    expect(image).toMatchObject({ code: 'payload_too_large' });
    expect(image.message).toMatch(/larger than the 0 MB allowed for images/);
    let pulled = 0;
    function* endless(): Generator<Buffer> {
      yield readFileSync(media.mp4).subarray(0, 8192);
      for (;;) { pulled += 1; yield Buffer.alloc(65536); }
    }
    const sniffed = await sniffMedia(Readable.from(endless(), { objectMode: false }), { maxImageBytes: 10, maxVideoBytes: 1024 * 1024 });
    await expect(buffer(sniffed.stream)).rejects.toThrow(/larger than the 1 MB allowed for videos/);
    expect(pulled).toBeLessThan(20);
  });
});
