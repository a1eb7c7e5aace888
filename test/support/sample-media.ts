import { crc32, deflateSync } from 'node:zlib';

/**
 * Small files whose bytes say what they are, for tests that upload them (the Mastodon
 * simulator, like Mastodon, judges media by their bytes). Made here: no binaries are committed.
 */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A square of one colour as a PNG (8-bit RGB, no filter). */
export function solidPng(size: number, rgb: readonly [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 1x1 red PNG, padded after its end to `totalBytes` when given (readers ignore what follows IEND). */
export function samplePng(totalBytes?: number): Buffer {
  const png = solidPng(1, [255, 0, 0]);
  return totalBytes === undefined ? png : Buffer.concat([png, Buffer.alloc(Math.max(0, totalBytes - png.length))]);
}

/** The head of an MP4 (an `ftyp` box, brand isom) and a `free` box filling it to `totalBytes`. */
export function sampleMp4(totalBytes = 200_000): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypisom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2', 'latin1'),
  ]);
  const free = Buffer.alloc(totalBytes - ftyp.length);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([ftyp, free]);
}
