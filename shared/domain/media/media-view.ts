import type { Types } from 'mongoose';
import type { Media } from '../../db/models/media.ts';

export type StoredMedia = Media & { _id: Types.ObjectId };

/** The contract's media shape, plus status (and error) for records still processing or failed. */
export interface MediaView {
  id: string;
  name: string;
  originalName: string | null;
  path: string | null;
  thumbnail: string | null;
  alt: string | null;
  mimeType: string | null;
  size: number | null;
  width?: number;
  height?: number;
  durationSeconds?: number;
  videoCodec?: string;
  audioCodec?: string;
  status: 'pending' | 'ready' | 'failed';
  error?: string;
  reason?: string;
  /** While a generated video is being made: the stage it is at and how much is done. */
  progress?: { stage: string; percent: number };
}

export function mediaView(media: StoredMedia): MediaView {
  const optional = (key: string, value: number | string | null | undefined) => (value === null || value === undefined ? {} : { [key]: value });
  return {
    id: media._id.toString(),
    name: media.name,
    originalName: media.originalName ?? null,
    path: media.path ?? null,
    thumbnail: media.thumbnail ?? null,
    alt: media.alt ?? null,
    mimeType: media.mimeType ?? null,
    size: media.size ?? null,
    ...optional('width', media.width),
    ...optional('height', media.height),
    ...optional('durationSeconds', media.durationSeconds),
    ...optional('videoCodec', media.videoCodec),
    ...optional('audioCodec', media.audioCodec),
    status: media.status,
    ...optional('error', media.error),
    ...optional('reason', media.errorReason),
    ...(media.status === 'pending' && media.progress !== null && media.progress !== undefined
      ? { progress: { stage: media.progress.stage, percent: media.progress.percent } }
      : {}),
  };
}

/** Reasons whose code is the reason itself, or its part before the colon (`provider_failed:timeout`). */
const codedReasons = [
  'fetch_failed', 'media_inspection_unavailable', 'provider_failed', 'video_generation_failed',
  'video_generation_unavailable',
] as const;

export type FailedMediaCode = (typeof codedReasons)[number] | 'unreadable_media';

/**
 * The error code a request answers with for a media the worker failed, from its reason: the
 * source could not be fetched, the server cannot inspect media or make videos (503: the
 * operator's to fix), the AI provider failed, the video could not be made, or the file itself
 * could not be read.
 */
export function failedMediaCode(reason: string | undefined): FailedMediaCode {
  const code = reason?.split(':')[0];
  return codedReasons.find((candidate) => candidate === code) ?? 'unreadable_media';
}
