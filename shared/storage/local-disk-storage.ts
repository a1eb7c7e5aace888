import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeObjectKey, isSafeObjectKey } from './object-key.ts';
import type { Storage, StoredObject } from './storage.ts';
import { trailingSlashes } from '../net/trailing-slashes.ts';

/** The embedded default: files under a folder on this machine, served by the api. */
export class LocalDiskStorage implements Storage {
  readonly #root: string;
  readonly #publicBaseUrl: string;

  constructor(options: { root: string; publicBaseUrl: string }) {
    this.#root = path.resolve(options.root);
    this.#publicBaseUrl = options.publicBaseUrl.replace(trailingSlashes, '');
  }

  async put(key: string, body: Readable): Promise<StoredObject> {
    const file = this.#fileFor(key);
    // A source that fails while the folder is made (a tool that cannot start) is heard here, not
    // left as an error event nobody listens to yet.
    const heard: Error[] = [];
    const hear = (error: Error): void => { heard.push(error); };
    body.once('error', hear);
    await mkdir(path.dirname(file), { recursive: true });
    body.off('error', hear);
    const [failedEarly] = heard;
    if (failedEarly !== undefined) throw failedEarly;
    // Write beside the target and rename, so a reader never sees half a file.
    const partial = `${file}.partial`;
    try {
      // Large writes: fewer system calls for the big video uploads this driver takes.
      await pipeline(body, createWriteStream(partial, { flags: 'wx', highWaterMark: 256 * 1024 }));
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    await rename(partial, file);
    const { size } = await stat(file);
    return { key, size, url: this.publicUrl(key) };
  }

  get(key: string): Promise<Readable> {
    return Promise.resolve(createReadStream(this.#fileFor(key)));
  }

  async delete(key: string): Promise<void> {
    await rm(this.#fileFor(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.#fileFor(key));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  readableLocation(key: string): Promise<string> {
    return Promise.resolve(this.#fileFor(key));
  }

  /** The file behind a key, for the api to serve; null when the key is not one of ours. */
  fileFor(key: string): string | null {
    return isSafeObjectKey(key) ? this.#fileFor(key) : null;
  }

  publicUrl(key: string): string {
    assertSafeObjectKey(key);
    return `${this.#publicBaseUrl}/${key}`;
  }

  #fileFor(key: string): string {
    assertSafeObjectKey(key);
    return path.join(this.#root, ...key.split('/'));
  }
}
