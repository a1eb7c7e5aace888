import { Transform, type Readable, type TransformCallback } from 'node:stream';
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
 * A pass-through that holds the first few kilobytes until their type is known, then lets every
 * chunk through as it is (no copy, no promise per chunk), counting bytes against the cap for
 * that kind.
 */
class SniffingStream extends Transform {
  readonly #limits: MediaSizeLimits;
  readonly #onType: (type: AcceptedMediaType | Error) => void;
  #head: Buffer[] = [];
  #headLength = 0;
  #limit = Number.POSITIVE_INFINITY;
  #kind: AcceptedMediaType['kind'] = 'image';
  #decided = false;
  total = 0;

  constructor(limits: MediaSizeLimits, onType: (type: AcceptedMediaType | Error) => void) {
    super({ highWaterMark: 128 * 1024 });
    this.#limits = limits;
    this.#onType = onType;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#decided) {
      this.#pass(chunk, callback);
      return;
    }
    this.#head.push(chunk);
    this.#headLength += chunk.length;
    if (this.#headLength < sniffBytes) {
      callback();
      return;
    }
    this.#decide().then(() => { this.#pass(Buffer.concat(this.#head), callback); this.#head = []; }, callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#decided) {
      callback();
      return;
    }
    // A file shorter than the sniffing window.
    this.#decide().then(() => { this.#pass(Buffer.concat(this.#head), callback); this.#head = []; }, callback);
  }

  async #decide(): Promise<void> {
    const head = Buffer.concat(this.#head);
    let type: AcceptedMediaType;
    try {
      type = acceptMediaType(await fileTypeFromBuffer(head), head.length);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#onType(failure);
      throw failure;
    }
    this.#decided = true;
    this.#kind = type.kind;
    this.#limit = sizeLimitFor(type.kind, this.#limits);
    this.#onType(type);
  }

  #pass(chunk: Buffer, callback: TransformCallback): void {
    this.total += chunk.length;
    if (this.total > this.#limit) {
      callback(tooLarge(this.#kind, this.#limit));
      return;
    }
    callback(null, chunk);
  }
}

/**
 * Reads just enough of `source` to know its type, refuses what is not allowed, and hands back
 * one stream of every byte with the size cap for that kind enforced while it flows. Nothing is
 * held beyond the first few kilobytes, and nothing is read twice.
 */
export async function sniffMedia(source: Readable, limits: MediaSizeLimits): Promise<SniffedMedia> {
  // A source that failed before it was handed over (a multipart body that ended mid-file) would
  // never emit again: its error is all there is to report.
  if (source.errored !== null) throw source.errored;
  if (source.destroyed) throw new Error('the source was closed before it was read');
  let settle: (type: AcceptedMediaType | Error) => void = () => undefined;
  const decided = new Promise<AcceptedMediaType | Error>((resolve) => { settle = resolve; });
  const sniffer = new SniffingStream(limits, (outcome) => { settle(outcome); });
  // The source stops as soon as the sniffer fails (a refused type, the cap): nothing more is read.
  source.once('error', (error) => { sniffer.destroy(error); settle(error); });
  sniffer.once('error', (error) => { source.destroy(); settle(error); });
  source.pipe(sniffer);
  const outcome = await decided;
  if (outcome instanceof Error) {
    sniffer.destroy();
    throw outcome;
  }
  return { type: outcome, stream: sniffer, bytesRead: () => sniffer.total };
}
