import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
  /** Public URL the object is served at. */
  url: string;
}

/**
 * Where media bytes live. Drivers stream in and out; nothing is held whole in memory.
 * Keys are storage-relative paths chosen by the caller (see `newObjectKey`).
 */
export interface Storage {
  put(key: string, body: Readable, options?: { contentType?: string }): Promise<StoredObject>;
  get(key: string): Promise<Readable>;
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  publicUrl(key: string): string;
  /** A path or URL ffmpeg/ffprobe can read the object from. */
  readableLocation(key: string): Promise<string>;
}
