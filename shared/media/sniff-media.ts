import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { acceptMediaType, sizeLimitFor, tooLarge, type AcceptedMediaType, type MediaSizeLimits } from './media-types.ts';

/** file-type reads at most this many bytes to recognise a format. */
const sniffBytes = 4100;

export interface SniffedMedia {
  type: AcceptedMediaType;
  /** All the bytes, the sniffed head first; errors with 413 as soon as the size cap is passed. */
  stream: Readable;
  /** Bytes that went through `stream` so far. */
  bytesRead(): number;
}

/**
 * Reads just enough of `source` to know its type, refuses what is not allowed, and hands back
 * one stream of every byte with the size cap for that kind enforced while it flows. Nothing is
 * held beyond the first few kilobytes, and nothing is read twice.
 */
export async function sniffMedia(source: AsyncIterable<Buffer | Uint8Array | string>, limits: MediaSizeLimits): Promise<SniffedMedia> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < sniffBytes) {
    const next = await iterator.next();
    if (next.done === true) { ended = true; break; }
    const chunk = Buffer.from(next.value);
    head.push(chunk);
    headLength += chunk.length;
  }
  const headBuffer = Buffer.concat(head);
  let type: AcceptedMediaType;
  try {
    type = acceptMediaType(await fileTypeFromBuffer(headBuffer), headBuffer.length);
  } catch (error) {
    await iterator.return?.();
    throw error;
  }
  const limit = sizeLimitFor(type.kind, limits);
  let total = 0;

  async function* everything(): AsyncGenerator<Buffer> {
    try {
      total += headBuffer.length;
      if (total > limit) throw tooLarge(type.kind, limit);
      yield headBuffer;
      while (!ended) {
        const next = await iterator.next();
        if (next.done === true) return;
        const chunk = Buffer.from(next.value);
        total += chunk.length;
        if (total > limit) throw tooLarge(type.kind, limit);
        yield chunk;
      }
    } finally {
      // Stop the source too (an upload being cut off, a download over the cap).
      await iterator.return?.();
    }
  }

  return { type, stream: Readable.from(everything(), { objectMode: false }), bytesRead: () => total };
}
