import type { Readable } from 'node:stream';
import { imageSize } from 'image-size';

/**
 * How much of an image is read to find its size: a JPEG's APP segments (EXIF, ICC profile, XMP,
 * an embedded thumbnail) come before the frame header that holds it, and together run to tens
 * or hundreds of KB in camera photos. A header not found in this much is left to ffprobe.
 */
export const headBytes = 512 * 1024;

/**
 * image-size's names for the types the allowlist accepts (media-types.ts); it reports AVIF under
 * its brand. It knows many more (TGA, ICO, PSD, ...) whose checks of the first bytes are loose: an
 * answer of another type is a misreading of one of ours, so it is not trusted.
 */
const acceptedTypes: ReadonlySet<string> = new Set(['jpg', 'png', 'gif', 'webp', 'avif', 'bmp', 'tiff']);

function validSide(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/**
 * The width and height an image's header declares, read from its first bytes without running
 * ffprobe; null when they cannot be read from these bytes (truncated, a type not accepted,
 * damaged, or a size of zero). Null means "ask ffprobe", never "the image is bad".
 *
 * These are the coded dimensions, the ones ffprobe reports and SPS has always stored: an EXIF
 * orientation (which image-size reports apart, as `orientation`) is ignored, not applied by
 * swapping width and height.
 */
export function imageDimensions(head: Uint8Array): { width: number; height: number } | null {
  let size;
  try {
    size = imageSize(head);
  } catch {
    // image-size throws (TypeError, or RangeError reading past the end) on any input it cannot
    // read: for this function that is the answer null, and the caller falls back to ffprobe.
    return null;
  }
  if (size.type === undefined || !acceptedTypes.has(size.type)) return null;
  if (!validSide(size.width) || !validSide(size.height)) return null;
  return { width: size.width, height: size.height };
}

/**
 * The first `maxBytes` of a stream (fewer when it is shorter). The stream is destroyed after, so
 * the rest of a large file is never read and its file handle or connection is released.
 */
export async function readHead(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<unknown>) {
      const buffer = Buffer.isBuffer(chunk) ? chunk
        : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      chunks.push(buffer);
      length += buffer.length;
      if (length >= maxBytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, Math.min(length, maxBytes));
}
