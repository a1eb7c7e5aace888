import { downloadMedia } from '../kit/media-download.ts';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { instagramRefusal } from './instagram-refusal.ts';

/**
 * Instagram pulls every image and video from the public URL a container names, the way its
 * servers do with cURL: a real HTTP GET here, its status, Content-Type, size and first bytes
 * checked against Instagram's limits (JPEG only and at most 8 MiB for images; MP4 or MOV at most
 * 300 MB for videos). Facts: ../shared/platforms/oauth-majors.md, section 4.3.
 */
export interface PulledMedia {
  kind: 'image' | 'video';
  url: string;
  /** HTTP status of the fetch, 0 when nothing answered. */
  status: number;
  contentType: string | null;
  size: number;
  /** For an image: Instagram's refusal of the container request; null when it was fine. */
  refusal: SimulatedAnswer | null;
  /** For a video: why the container ends in ERROR; null when it was fine. */
  problem: string | null;
}

const maxImageBytes = 8 * 1024 * 1024;
const maxVideoBytes = 300 * 1024 * 1024;
const videoTypes = ['video/mp4', 'video/quicktime'];

export async function fetchPulledMedia(url: string, kind: 'image' | 'video'): Promise<PulledMedia> {
  const got = await downloadMedia(url, kind === 'image' ? maxImageBytes : maxVideoBytes);
  const { status, contentType, size } = got;
  const base = { kind, url, status, contentType, size, refusal: null, problem: null };
  const type = (got.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const fetched = got.status === 200;
  if (kind === 'video') {
    let problem: string | null = null;
    if (!fetched) problem = `Media download has failed: the video could not be fetched from ${url} (2207052)`;
    else if (got.tooLarge) problem = 'The video file is larger than 300 MB (2207026)';
    else if (!videoTypes.includes(type) || got.head.subarray(4, 8).toString('latin1') !== 'ftyp') {
      problem = 'The video format is not supported. Please check the specs and try again (2207026)';
    }
    return { ...base, problem };
  }
  let refusal: SimulatedAnswer | null = null;
  if (!fetched) {
    refusal = instagramRefusal('Only photo or video can be accepted as media type.', { code: 9004, subcode: 2207052 }, {
      title: 'Media download has failed.',
      message: `The media could not be fetched from this URI: ${url}. Please check that it is public and try again.`,
    });
  } else if (got.tooLarge) {
    refusal = instagramRefusal('The image size is too large.', { code: 36000, subcode: 2207004 }, {
      title: 'Image size too large',
      message: 'The image is too large to download. It should be less than 8 MiB.',
    });
  } else if (type !== 'image/jpeg' || !got.head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) {
    refusal = instagramRefusal('The image format is not supported.', { code: 36001, subcode: 2207005 }, {
      title: 'Unsupported image format',
      message: 'The image format is not supported. Only JPEG images can be published.',
    });
  }
  return { ...base, refusal };
}
