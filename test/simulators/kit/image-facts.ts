/**
 * What a platform reads from an uploaded image's own bytes (never its name or declared type):
 * its format and, for PNG, JPEG and GIF, its size in pixels. Enough for simulators that refuse
 * formats or sizes the way their platform does.
 */
export interface ImageFacts {
  mimeType: string;
  width: number | null;
  height: number | null;
}

function startsWith(bytes: Buffer, signature: readonly number[], at = 0): boolean {
  return signature.every((byte, index) => bytes[at + index] === byte);
}

/** A JPEG's size sits in its first start-of-frame segment (SOF0 to SOF15, bar DHT, JPG and DAC). */
function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1] ?? 0;
    const length = bytes.readUInt16BE(at + 2);
    const frame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (frame) return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return null;
}

export function imageFacts(bytes: Buffer): ImageFacts | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) && bytes.length >= 24) {
    return { mimeType: 'image/png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) {
    const size = jpegSize(bytes);
    return { mimeType: 'image/jpeg', width: size?.width ?? null, height: size?.height ?? null };
  }
  const head = bytes.subarray(0, 12).toString('latin1');
  if ((head.startsWith('GIF87a') || head.startsWith('GIF89a')) && bytes.length >= 10) {
    return { mimeType: 'image/gif', width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  const unsized = (mimeType: string): ImageFacts => ({ mimeType, width: null, height: null });
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return unsized('image/webp');
  if (head.slice(4, 12) === 'ftypavif' || head.slice(4, 12) === 'ftypavis') return unsized('image/avif');
  if (head.startsWith('BM')) return unsized('image/bmp');
  if (head.startsWith('II*\u0000') || head.startsWith('MM\u0000*')) return unsized('image/tiff');
  return null;
}
