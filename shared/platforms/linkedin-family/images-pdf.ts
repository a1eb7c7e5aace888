import type { Readable } from 'node:stream';
import { deflateSync, inflateSync } from 'node:zlib';
import type { PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';

/**
 * A LinkedIn carousel is a document post: LinkedIn shows a PDF's pages as slides. SPS makes that
 * PDF from the post's images, one image per page at its own size: a JPEG is embedded as it is
 * (DCTDecode), a PNG (8 bits per channel) is decoded to RGB and embedded compressed (FlateDecode),
 * dropping transparency. Other images cannot be pages (definition.ts refuses them for carousels).
 */
interface PageImage {
  width: number;
  height: number;
  /** The image XObject's dictionary entries besides size and length. */
  entries: string;
  data: Buffer;
}

class UnsupportedImage extends Error {}

async function bytesOf(file: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of file) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const jpegColorSpaces: Record<number, string> = { 1: '/DeviceGray', 3: '/DeviceRGB', 4: '/DeviceCMYK' };

function jpegPage(data: Buffer): PageImage {
  let at = 2;
  while (at + 9 < data.length) {
    if (data[at] !== 0xff) throw new UnsupportedImage('a JPEG whose markers cannot be read');
    const marker = data[at + 1] ?? 0;
    const length = data.readUInt16BE(at + 2);
    // Start-of-frame markers carry the size; C4, C8 and CC are other segments in that range.
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      const height = data.readUInt16BE(at + 5);
      const width = data.readUInt16BE(at + 7);
      const colorSpace = jpegColorSpaces[data[at + 9] ?? 0];
      if (colorSpace === undefined) throw new UnsupportedImage('a JPEG with an unusual number of colour channels');
      return { width, height, entries: `/ColorSpace ${colorSpace} /BitsPerComponent 8 /Filter /DCTDecode`, data };
    }
    at += 2 + length;
  }
  throw new UnsupportedImage('a JPEG without a frame header');
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const toLeft = Math.abs(estimate - left);
  const toUp = Math.abs(estimate - up);
  const toUpLeft = Math.abs(estimate - upLeft);
  if (toLeft <= toUp && toLeft <= toUpLeft) return left;
  return toUp <= toUpLeft ? up : upLeft;
}

/** The PNG's scanlines without their filters (RFC 2083, section 6). */
function unfilter(inflated: Buffer, width: number, height: number, channels: number): Buffer {
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let row = 0; row < height; row += 1) {
    const filter = inflated[row * (stride + 1)] ?? 0;
    const source = row * (stride + 1) + 1;
    const target = row * stride;
    for (let x = 0; x < stride; x += 1) {
      const raw = inflated[source + x] ?? 0;
      const left = x >= channels ? pixels[target + x - channels] ?? 0 : 0;
      const up = row > 0 ? pixels[target - stride + x] ?? 0 : 0;
      const upLeft = row > 0 && x >= channels ? pixels[target - stride + x - channels] ?? 0 : 0;
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter];
      if (predicted === undefined) throw new UnsupportedImage('a PNG with an unknown row filter');
      pixels[target + x] = (raw + predicted) & 0xff;
    }
  }
  return pixels;
}

const pngChannels: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function pngPage(data: Buffer): PageImage {
  let at = 8;
  let header: Buffer | null = null;
  let palette: Buffer | null = null;
  const compressed: Buffer[] = [];
  while (at + 8 <= data.length) {
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    const body = data.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'PLTE') palette = body;
    if (type === 'IDAT') compressed.push(body);
    at += 12 + length;
  }
  if (header === null) throw new UnsupportedImage('a PNG without a header');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [bitDepth, colorType, , , interlace] = header.subarray(8, 13);
  const channels = pngChannels[colorType ?? -1];
  if (bitDepth !== 8 || interlace !== 0 || channels === undefined) {
    throw new UnsupportedImage('a PNG that is interlaced or not 8 bits per channel');
  }
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(compressed));
  } catch (error) {
    throw new UnsupportedImage('a PNG whose image data is damaged', { cause: error });
  }
  const pixels = unfilter(inflated, width, height, channels);
  const rgb = Buffer.alloc(width * height * 3);
  for (let pixel = 0; pixel < width * height; pixel += 1) {
    const at = pixel * channels;
    const first = pixels[at] ?? 0;
    let color: [number, number, number];
    if (colorType === 3) {
      const entry = first * 3;
      color = [palette?.[entry] ?? 0, palette?.[entry + 1] ?? 0, palette?.[entry + 2] ?? 0];
    } else if (channels <= 2) {
      color = [first, first, first];
    } else {
      color = [first, pixels[at + 1] ?? 0, pixels[at + 2] ?? 0];
    }
    rgb.set(color, pixel * 3);
  }
  const entries = '/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode';
  return { width, height, entries, data: deflateSync(rgb) };
}

function pageImage(media: PublishMedia, data: Buffer): PageImage {
  if (media.mimeType === 'image/jpeg') return jpegPage(data);
  if (media.mimeType === 'image/png') return pngPage(data);
  throw new UnsupportedImage(`a ${media.mimeType} image`);
}

/** The PDF file: catalog, page tree, then a page, its image and its drawing per image; xref at the end. */
function pdfOf(pages: PageImage[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let size = parts[0]?.length ?? 0;
  const add = (object: number, head: string, stream?: Buffer): void => {
    offsets[object] = size;
    const pieces = stream === undefined
      ? [Buffer.from(`${String(object)} 0 obj\n${head}\nendobj\n`, 'latin1')]
      : [
        Buffer.from(`${String(object)} 0 obj\n${head}\nstream\n`, 'latin1'),
        stream,
        Buffer.from('\nendstream\nendobj\n'),
      ];
    for (const piece of pieces) {
      parts.push(piece);
      size += piece.length;
    }
  };
  const kids = pages.map((_, index) => `${String(3 + index * 3)} 0 R`).join(' ');
  add(1, '<< /Type /Catalog /Pages 2 0 R >>');
  add(2, `<< /Type /Pages /Kids [${kids}] /Count ${String(pages.length)} >>`);
  pages.forEach((page, index) => {
    const [pageObject, imageObject, drawObject] = [3 + index * 3, 4 + index * 3, 5 + index * 3];
    const box = `[0 0 ${String(page.width)} ${String(page.height)}]`;
    const resources = `<< /XObject << /Im0 ${String(imageObject)} 0 R >> >>`;
    const contents = `/Contents ${String(drawObject)} 0 R`;
    add(pageObject, `<< /Type /Page /Parent 2 0 R /MediaBox ${box} /Resources ${resources} ${contents} >>`);
    const image = `/Type /XObject /Subtype /Image /Width ${String(page.width)} /Height ${String(page.height)}`;
    add(imageObject, `<< ${image} ${page.entries} /Length ${String(page.data.length)} >>`, page.data);
    const draw = Buffer.from(`q ${String(page.width)} 0 0 ${String(page.height)} 0 0 cm /Im0 Do Q`, 'latin1');
    add(drawObject, `<< /Length ${String(draw.length)} >>`, draw);
  });
  const count = 3 + pages.length * 3;
  const xref = [`xref\n0 ${String(count)}\n`, '0000000000 65535 f \n'];
  for (let object = 1; object < count; object += 1) {
    xref.push(`${String(offsets[object] ?? 0).padStart(10, '0')} 00000 n \n`);
  }
  xref.push(`trailer\n<< /Size ${String(count)} /Root 1 0 R >>\nstartxref\n${String(size)}\n%%EOF\n`);
  parts.push(Buffer.from(xref.join(''), 'latin1'));
  return Buffer.concat(parts);
}

export async function imagesAsPdf(media: PublishMedia[], provider: string): Promise<Buffer> {
  const pages: PageImage[] = [];
  for (const item of media) {
    const file = await item.open();
    try {
      pages.push(pageImage(item, await bytesOf(file)));
    } catch (error) {
      if (!(error instanceof UnsupportedImage) && !(error instanceof RangeError)) throw error;
      const message = `a LinkedIn carousel cannot show ${item.fileName}: ${error.message}; `
        + 'use JPEG or 8-bit PNG images';
      throw new PlatformError({ kind: 'permanent', provider, message, cause: error });
    } finally {
      file.destroy();
    }
  }
  return pdfOf(pages);
}
