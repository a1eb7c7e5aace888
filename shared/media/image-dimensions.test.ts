import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { synthesizedMedia } from '../../test/support/synthesized-media.ts';
import { headBytes, imageDimensions, readHead } from './image-dimensions.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sps-image-dimensions-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A 321x123 still in the format the extension names: odd sides, unequal, so a swap or rounding
 * shows. testsrc, not color: color makes YUV 4:2:0 frames and rounds odd sides down (to 320x122).
 */
function still(extension: string, codec: readonly string[] = []): Buffer {
  const file = path.join(dir, `still.${extension}`);
  synthesizedMedia(['-f', 'lavfi', '-i', 'testsrc=size=321x123', '-frames:v', '1', ...codec], file);
  return readFileSync(file);
}

/**
 * A JPEG with `total` bytes of APP15 segments spliced in after its SOI marker, as a camera's EXIF,
 * ICC profile and thumbnail put bytes before the frame header (SOF) that holds the size. A segment
 * holds at most 65,533 bytes (its length field is 16 bits and counts itself), so it takes several.
 */
function jpegWithLargeAppSegments(total: number): Buffer {
  const jpeg = still('jpg');
  const segments: Buffer[] = [];
  for (let left = total; left > 0; left -= 65_533) {
    const payload = Math.min(left, 65_533);
    const segment = Buffer.alloc(4 + payload, 0x20);
    segment.writeUInt16BE(0xffef, 0);
    segment.writeUInt16BE(payload + 2, 2);
    segments.push(segment);
  }
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

describe('imageDimensions', () => {
  it.each([
    ['png', []],
    ['jpg', []],
    ['gif', []],
    ['webp', ['-c:v', 'libwebp']],
    ['bmp', []],
    ['tiff', []],
    // This ffmpeg encodes AV1 (libaom); the avif muxer writes a still AVIF image.
    ['avif', ['-c:v', 'libaom-av1', '-still-picture', '1', '-cpu-used', '8']],
  ])('reads the size of a %s from its header', (extension, codec) => {
    expect(imageDimensions(still(extension, codec))).toEqual({ width: 321, height: 123 });
  });

  it('answers null for a truncated header and for bytes that are no image', () => {
    expect(imageDimensions(still('png').subarray(0, 10))).toBeNull();
    // Fixed bytes, not random: two random bytes would start a BMP ("BM") once in 65,536 runs.
    expect(imageDimensions(Buffer.from('plain text, no image header at all\n'.repeat(120)))).toBeNull();
    expect(imageDimensions(new Uint8Array(0))).toBeNull();
  });

  it('reads a JPEG whose frame header comes after 100 KB of APP segments, not from a head cut before it', () => {
    const jpeg = jpegWithLargeAppSegments(100_000);
    expect(jpeg.length).toBeLessThan(headBytes);
    expect(imageDimensions(jpeg)).toEqual({ width: 321, height: 123 });
    expect(imageDimensions(jpeg.subarray(0, 90_000))).toBeNull();
  });

  it('answers null for a PNG that declares a size of zero', () => {
    const png = Buffer.from(still('png'));
    // IHDR's width is the four bytes after the signature (8), the chunk's length (4) and type (4).
    png.writeUInt32BE(0, 16);
    expect(imageDimensions(png)).toBeNull();
  });
});

describe('readHead', () => {
  it('reads at most maxBytes and destroys the stream', async () => {
    const stream = Readable.from([Buffer.alloc(300, 1), Buffer.alloc(300, 2), Buffer.alloc(300, 3)]);
    const head = await readHead(stream, 500);
    expect(head.length).toBe(500);
    expect(head[299]).toBe(1);
    expect(head[300]).toBe(2);
    expect(stream.destroyed).toBe(true);
  });

  it('reads all of a stream shorter than maxBytes', async () => {
    const stream = Readable.from([Buffer.from('abc'), Buffer.from('def')]);
    expect((await readHead(stream, 1024)).toString()).toBe('abcdef');
    expect(stream.destroyed).toBe(true);
  });

  it('fails as the stream fails', async () => {
    const stream = new Readable({
      read() {
        this.destroy(new Error('storage went away'));
      },
    });
    await expect(readHead(stream, 1024)).rejects.toThrow('storage went away');
  });
});
