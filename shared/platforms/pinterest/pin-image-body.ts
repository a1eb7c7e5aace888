import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { PublishMedia } from '../kit/platform-adapter.ts';

/**
 * A `POST /v5/pins` body carrying its images inline (`image_base64`, or `multiple_image_base64`
 * for a carousel), streamed: each file is read from storage and base64-encoded as the request
 * goes out, so a 20 MB image never sits whole in memory, nor its 27 MB of base64.
 *
 * Why inline rather than `image_url`: Pinterest fetches a URL itself, so that source only works
 * where the uploads are served on a public address; the bytes work from any deployment and need
 * no second request (design-blogging-business.md 1.3).
 */

/** Base64 of a stream, carrying the 0 to 2 bytes that do not fill a 3-byte group to the next chunk. */
async function* base64Of(file: Readable): AsyncGenerator<Buffer> {
  let carry = Buffer.alloc(0);
  for await (const chunk of file) {
    const bytes = Buffer.concat([carry, chunk as Buffer]);
    const whole = bytes.length - (bytes.length % 3);
    carry = bytes.subarray(whole);
    if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'), 'latin1');
  }
  if (carry.length > 0) yield Buffer.from(carry.toString('base64'), 'latin1');
}

const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);

/** The pin's `media_source` for its images, with a marker where each file's base64 goes. */
function imageSource(images: readonly PublishMedia[], marker: (index: number) => string): unknown {
  const [only] = images;
  if (images.length === 1 && only !== undefined) {
    return { source_type: 'image_base64', content_type: only.mimeType, data: marker(0) };
  }
  const items = images.map((image, index) => ({ content_type: image.mimeType, data: marker(index) }));
  return { source_type: 'multiple_image_base64', items };
}

/**
 * The JSON text of `fields` plus the images' media_source, as a stream and its exact length
 * (Content-Length: Pinterest reads a body whose end it knows). The JSON around the images is
 * made by JSON.stringify, with random markers standing for the data, then split at them.
 */
export function pinImageBody(
  fields: Record<string, unknown>,
  images: readonly PublishMedia[],
): { data: Readable; length: number } {
  const nonce = randomBytes(12).toString('hex');
  const marker = (index: number) => `sps-image-${nonce}-${String(index)}`;
  const text = JSON.stringify({ ...fields, media_source: imageSource(images, marker) });
  const pieces: string[] = [];
  let rest = text;
  for (const index of images.keys()) {
    const [before, after, ...more] = rest.split(marker(index));
    // A marker is 24 random hex digits: met twice only if the post's own text carried it.
    if (before === undefined || after === undefined || more.length > 0) {
      throw new Error('the pin body could not be assembled around its images');
    }
    pieces.push(before);
    rest = after;
  }
  pieces.push(rest);
  const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0)
    + images.reduce((sum, image) => sum + base64Length(image.size), 0);

  async function* body(): AsyncGenerator<Buffer> {
    for (const [index, image] of images.entries()) {
      yield Buffer.from(pieces[index] ?? '');
      const file = await image.open();
      try {
        yield* base64Of(file);
      } finally {
        file.destroy();
      }
    }
    yield Buffer.from(pieces.at(-1) ?? '');
  }
  return { data: Readable.from(body()), length };
}
