import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalDiskStorage } from './local-disk-storage.ts';
import { newObjectKey } from './object-key.ts';

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'sps-storage-'));
    storage = new LocalDiskStorage({ root, publicBaseUrl: 'http://localhost:5000/uploads/' });
  });
  afterAll(async () => { await rm(root, { recursive: true, force: true }); });

  it('streams an object to a dated path, serves it back and deletes it', async () => {
    const key = newObjectKey('png', new Date('2026-03-04T05:06:07Z'));
    expect(key).toMatch(/^2026\/03\/04\/[0-9a-f]{32}\.png$/);
    const stored = await storage.put(key, Readable.from([Buffer.from('hello '), Buffer.from('world')]));
    expect(stored).toEqual({ key, size: 11, url: `http://localhost:5000/uploads/${key}` });
    expect(await readFile(path.join(root, key), 'utf8')).toBe('hello world');
    expect(await text(await storage.get(key))).toBe('hello world');
    expect(await storage.exists(key)).toBe(true);
    await storage.delete(key);
    expect(await storage.exists(key)).toBe(false);
  });

  it('leaves nothing behind when the source stream fails', async () => {
    const key = newObjectKey('mp4');
    const failing = new Readable({ read() { this.destroy(new Error('client went away')); } });
    await expect(storage.put(key, failing)).rejects.toThrow('client went away');
    expect(await storage.exists(key)).toBe(false);
  });

  it('refuses keys that could escape the root', async () => {
    await expect(storage.exists('../../etc/passwd')).rejects.toThrow(/invalid storage key/);
    expect(() => storage.publicUrl('2026/01/01/../../x.png')).toThrow(/invalid storage key/);
    expect(() => newObjectKey('../sh')).toThrow(/unsafe file extension/);
  });
});
