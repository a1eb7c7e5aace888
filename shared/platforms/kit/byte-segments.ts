import type { Readable } from 'node:stream';

/**
 * A file's bytes from `skip` on in segments of `size`, the last one shorter, read as the stream
 * goes: chunked uploads (X's `append`, TikTok's `Content-Range` PUTs, YouTube's resumed session,
 * which skips what YouTube already holds) hold one segment at a time, never the file.
 */
export async function* segments(stream: Readable, size: number, skip = 0): AsyncGenerator<Buffer> {
  let skipping = skip;
  let pending: Buffer[] = [];
  let held = 0;
  for await (const chunk of stream) {
    let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (skipping > 0) {
      const dropped = Math.min(skipping, bytes.length);
      bytes = bytes.subarray(dropped);
      skipping -= dropped;
    }
    while (held + bytes.length >= size) {
      const take = size - held;
      yield Buffer.concat([...pending, bytes.subarray(0, take)]);
      bytes = bytes.subarray(take);
      pending = [];
      held = 0;
    }
    if (bytes.length > 0) {
      pending.push(bytes);
      held += bytes.length;
    }
  }
  if (held > 0) yield Buffer.concat(pending);
}
