import { imageSize } from '../../../shared/platforms/bluesky/image-size.ts';
import { downloadMedia } from '../kit/media-download.ts';
import type { FieldRefusal } from './gmb-answers.ts';

/**
 * How Google takes a local post's media: it fetches `sourceUrl` itself and judges what came back.
 * Photos must be JPG or PNG of 10 KB to 5 MB and at least 250x250 (design-blogging-business.md 7.3).
 */

const minPhotoBytes = 10 * 1024;
const maxPhotoBytes = 5 * 1024 * 1024;
const maxVideoBytes = 75 * 1024 * 1024;
const minSide = 250;

export type FetchedMedia = { bytes: Buffer } | { refusal: FieldRefusal };

function photoType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

export async function fetchMedia(index: number, mediaFormat: string, sourceUrl: string): Promise<FetchedMedia> {
  const field = `media[${String(index)}].source_url`;
  const photo = mediaFormat === 'PHOTO';
  const download = await downloadMedia(sourceUrl, photo ? maxPhotoBytes : maxVideoBytes, true);
  if (download.status !== 200) {
    return { refusal: { field, message: `The media could not be fetched from ${sourceUrl}.` } };
  }
  if (download.bytes === null) {
    return { refusal: { field, message: 'The media is larger than the maximum size allowed.' } };
  }
  const { bytes } = download;
  if (!photo) return { bytes };
  if (photoType(bytes) === null) return { refusal: { field, message: 'Photos must be in JPG or PNG format.' } };
  if (bytes.length < minPhotoBytes) return { refusal: { field, message: 'The photo must be at least 10 KB.' } };
  const size = imageSize(bytes);
  if (size === null || size.width < minSide || size.height < minSide) {
    return { refusal: { field, message: 'The photo must be at least 250 x 250 pixels.' } };
  }
  return { bytes };
}
