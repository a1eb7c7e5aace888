import type { MediaFacts, PlatformDefinition } from './platform-definition.ts';

/** What every platform handles best (the spec's recommended video format). */
export const recommendedVideoFormat = 'MP4, H.264 baseline or main profile, AAC audio, 30 fps or less, at most 1920x1080';
const shortFormAddition = '; portrait 1080x1920 for short-form video';

interface VideoLimits {
  /** Video codecs the platform accepts, as ffprobe names them; 'any' where it transcodes everything. */
  videoCodecs: readonly string[] | 'any';
  audioCodecs: readonly string[] | 'any';
  maxFrameRate: number | null;
  /** Longest side and shortest side, so portrait and landscape are judged alike. */
  maxLongSide: number | null;
  maxShortSide: number | null;
  maxDurationSeconds: number | null;
  shortForm: boolean;
}

const common: VideoLimits = { videoCodecs: ['h264'], audioCodecs: ['aac'], maxFrameRate: 60, maxLongSide: null, maxShortSide: null, maxDurationSeconds: null, shortForm: false };
const transcodesAnything: Partial<VideoLimits> = { videoCodecs: 'any', audioCodecs: 'any', maxFrameRate: null };

/**
 * Video limits per platform, from ../shared/platforms/ (limits the registry files do not already
 * check). Platforms not named here get `common`.
 */
const perPlatform: Record<string, Partial<VideoLimits>> = {
  x: { maxDurationSeconds: 140, maxLongSide: 1920, maxShortSide: 1200 },
  bluesky: { maxDurationSeconds: 180 },
  threads: { maxDurationSeconds: 300 },
  linkedin: { maxDurationSeconds: 900 },
  'linkedin-page': { maxDurationSeconds: 900 },
  instagram: { videoCodecs: ['h264', 'hevc'], shortForm: true },
  'instagram-standalone': { videoCodecs: ['h264', 'hevc'], shortForm: true },
  tiktok: { videoCodecs: ['h264', 'hevc'], shortForm: true },
  youtube: { ...transcodesAnything, shortForm: true },
  mastodon: { ...transcodesAnything, maxFrameRate: 120 },
  telegram: transcodesAnything,
  discord: transcodesAnything,
  slack: transcodesAnything,
};

export function videoLimitsFor(identifier: string): VideoLimits {
  return { ...common, ...perPlatform[identifier] };
}

/** Problems of one inspected video on a platform; each names the recommended format. */
export function videoProblems(platform: PlatformDefinition, video: MediaFacts): string[] {
  const limits = videoLimitsFor(platform.identifier);
  const found: string[] = [];
  const { videoCodec, audioCodec, frameRate, width, height, durationSeconds } = video;
  if (limits.videoCodecs !== 'any' && videoCodec !== null && videoCodec !== undefined && !limits.videoCodecs.includes(videoCodec)) found.push(`its ${videoCodec} video is not accepted`);
  if (limits.audioCodecs !== 'any' && audioCodec !== null && audioCodec !== undefined && !limits.audioCodecs.includes(audioCodec)) found.push(`its ${audioCodec} audio is not accepted`);
  if (limits.maxFrameRate !== null && frameRate !== null && frameRate !== undefined && frameRate > limits.maxFrameRate + 0.5) found.push(`${frameRate} fps is over ${limits.maxFrameRate}`);
  if (width !== null && height !== null) {
    const long = Math.max(width, height);
    const short = Math.min(width, height);
    if ((limits.maxLongSide !== null && long > limits.maxLongSide) || (limits.maxShortSide !== null && short > limits.maxShortSide)) {
      found.push(`${width}x${height} is over ${limits.maxLongSide ?? '?'}x${limits.maxShortSide ?? '?'}`);
    }
  }
  if (limits.maxDurationSeconds !== null && durationSeconds !== null && durationSeconds > limits.maxDurationSeconds) {
    found.push(`it lasts ${Math.round(durationSeconds)} seconds, over ${limits.maxDurationSeconds}`);
  }
  if (found.length === 0) return [];
  return [`the video does not suit ${platform.displayName}: ${found.join(', ')}. Recommended: ${recommendedVideoFormat}${limits.shortForm ? shortFormAddition : ''}`];
}
