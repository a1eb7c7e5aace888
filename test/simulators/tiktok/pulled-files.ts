import { downloadMedia } from '../kit/media-download.ts';

/**
 * TikTok pulls PULL_FROM_URL media itself after answering the init (oauth-majors.md 8.2, 8.3):
 * a real HTTP GET here (the kit's downloadMedia, as Instagram's simulation does), judged by
 * TikTok's rules. A failure ends the publish as FAILED with the fail_reason named here.
 * Photos: JPEG or WebP (no PNG), at most 20 MB. Videos: MP4, WebM or MOV, at most 4 GB.
 */
export interface PulledFile {
  url: string;
  /** HTTP status of the fetch, 0 when nothing answered. */
  status: number;
  contentType: string | null;
  size: number;
  /** What TikTok received, to compare with what SPS stores; null when the pull failed. */
  bytes: Buffer | null;
  /** TikTok's fail_reason for this file; null when it was fine. */
  failReason: string | null;
}

const maxPhotoBytes = 20 * 1024 * 1024;
/** The simulation keeps pulled videos in memory: far below TikTok's 4 GB, far above test files. */
const maxPulledVideoBytes = 256 * 1024 * 1024;

const isJpeg = (head: Buffer) => head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]));
const isWebp = (head: Buffer) =>
  head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP';
/** MP4 and MOV start with an `ftyp` box; WebM with the EBML magic. */
export const looksLikeVideo = (head: Buffer) =>
  head.subarray(4, 8).toString('latin1') === 'ftyp'
  || head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));

export async function pullFile(url: string, kind: 'photo' | 'video'): Promise<PulledFile> {
  const got = await downloadMedia(url, kind === 'photo' ? maxPhotoBytes : maxPulledVideoBytes, true);
  const base = { url, status: got.status, contentType: got.contentType, size: got.size, bytes: got.bytes };
  const pullFailed = kind === 'photo' ? 'photo_pull_failed' : 'video_pull_failed';
  if (got.status !== 200) return { ...base, bytes: null, failReason: pullFailed };
  if (got.tooLarge) return { ...base, failReason: kind === 'photo' ? 'picture_size_check_failed' : pullFailed };
  const signatureOk = kind === 'photo' ? isJpeg(got.head) || isWebp(got.head) : looksLikeVideo(got.head);
  return { ...base, failReason: signatureOk ? null : 'file_format_check_failed' };
}

/** Whether `url` starts with a prefix the app verified in TikTok's developer portal. */
export function verifiedUrl(url: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => url.startsWith(prefix));
}
