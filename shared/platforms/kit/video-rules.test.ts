import { describe, expect, it } from 'vitest';
import type { MediaFacts } from './platform-definition.ts';
import { findPlatform } from '../platforms.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { recommendedVideoFormat, videoProblems } from './video-rules.ts';

const h264: MediaFacts = {
  kind: 'video', mimeType: 'video/mp4', width: 1280, height: 720, durationSeconds: 30, sizeBytes: 1_000_000,
  videoCodec: 'h264', audioCodec: 'aac', frameRate: 30,
};
const platform = (identifier: string) => {
  const found = findPlatform(identifier);
  if (found === undefined) throw new Error(`no platform ${identifier}`);
  return found;
};

describe('video rules', () => {
  it('accepts the recommended format everywhere it takes video', () => {
    for (const identifier of ['x', 'linkedin', 'bluesky', 'threads', 'mastodon', 'telegram']) expect(videoProblems(platform(identifier), h264), identifier).toEqual([]);
  });

  it('names what does not suit the platform and states the recommended format', () => {
    const [problem] = videoProblems(platform('x'), { ...h264, videoCodec: 'hevc', frameRate: 120, width: 3840, height: 2160, durationSeconds: 300 });
    expect(problem).toBe(`the video does not suit X: its hevc video is not accepted, 120 fps is over 60, 3840x2160 is over 1920x1200, it lasts 300 seconds, over 140. Recommended: ${recommendedVideoFormat}`);
  });

  it('adds the portrait size for short-form platforms and lets transcoding platforms take any codec', () => {
    expect(videoProblems(platform('tiktok'), { ...h264, videoCodec: 'vp9' })[0]).toMatch(/portrait 1080x1920 for short-form video$/);
    expect(videoProblems(platform('tiktok'), { ...h264, videoCodec: 'hevc' })).toEqual([]);
    expect(videoProblems(platform('mastodon'), { ...h264, videoCodec: 'vp9', audioCodec: 'opus', frameRate: 100 })).toEqual([]);
  });

  it('judges portrait and landscape alike and ignores what was not measured', () => {
    expect(videoProblems(platform('x'), { ...h264, width: 1080, height: 1920 })).toEqual([]);
    expect(videoProblems(platform('x'), { ...h264, videoCodec: null, audioCodec: null, frameRate: null, width: null, height: null, durationSeconds: null })).toEqual([]);
  });

  it('reports the problem at the media item through validatePlatformPost', () => {
    const result = validatePlatformPost(platform('x'), { settings: {}, parts: [{ text: 'clip', media: [{ ...h264, durationSeconds: 200 }] }] });
    expect(result.problems).toEqual([{ path: 'value.0.image.0', message: expect.stringMatching(/lasts 200 seconds, over 140\. Recommended: MP4/) as string }]);
  });
});
