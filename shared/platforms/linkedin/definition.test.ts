import { describe, expect, it } from 'vitest';
import type { MediaFacts, PlatformDefinition } from '../kit/platform-definition.ts';
import { linkedinPage } from '../linkedin-page/definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { linkedin } from './definition.ts';

const kilobytes = 1024;
const megabytes = 1024 * 1024;

function image(mimeType = 'image/png', width = 1000, height = 1000): MediaFacts {
  return { kind: 'image', mimeType, width, height, durationSeconds: null, sizeBytes: 200_000 };
}

function video(sizeBytes: number | null, durationSeconds: number | null = 30): MediaFacts {
  return { kind: 'video', mimeType: 'video/mp4', width: 1280, height: 720, durationSeconds, sizeBytes };
}

function problems(platform: PlatformDefinition, settings: Record<string, unknown>, ...parts: [string, MediaFacts[]][]) {
  const post = { settings, parts: parts.map(([text, media]) => ({ text, media })) };
  return validatePlatformPost(platform, post).problems.map((problem) => problem.message);
}

describe.each([linkedin, linkedinPage])('$identifier media sizes', (platform) => {
  it('takes a video from 75 KB to 500 MB, refusing a byte outside either way', () => {
    expect(problems(platform, {}, ['post', [video(75 * kilobytes)]])).toEqual([]);
    expect(problems(platform, {}, ['post', [video(500 * megabytes)]])).toEqual([]);
    expect(problems(platform, {}, ['post', [video(75 * kilobytes - 1)]]))
      .toEqual(['part 1 has a 0.1 MB video; LinkedIn takes videos from 75 KB to 500 MB']);
    expect(problems(platform, {}, ['post', [video(500 * megabytes + 1)]]))
      .toEqual(['part 1 has a 500.0 MB video; LinkedIn takes videos from 75 KB to 500 MB']);
  });

  it('judges a file whose size is not known yet by its type and length alone', () => {
    expect(problems(platform, {}, ['post', [video(null)]])).toEqual([]);
  });

  it('refuses a video shorter than 3 seconds', () => {
    expect(problems(platform, {}, ['post', [video(1 * megabytes, 2.5)]]))
      .toEqual(['part 1 has a video of 2.5 seconds; LinkedIn takes videos of 3 seconds or more']);
  });

  it('refuses an image of 36,152,320 pixels or more', () => {
    expect(problems(platform, {}, ['post', [image('image/jpeg', 6000, 6000)]])).toEqual([]);
    expect(problems(platform, {}, ['post', [image('image/jpeg', 6016, 6010)]]))
      .toEqual(['part 1 has a 6016x6010 image; LinkedIn takes images under 36,152,320 pixels']);
  });

  it('makes carousels of JPEG and PNG images only', () => {
    expect(problems(platform, { carousel: true }, ['post', [image('image/jpeg'), image('image/png')]])).toEqual([]);
    expect(problems(platform, { carousel: true }, ['post', [image('image/jpeg'), image('image/gif')]]))
      .toEqual(['part 1 has a image/gif image; a LinkedIn carousel takes JPEG or PNG images']);
    expect(problems(platform, {}, ['post', [image('image/jpeg'), image('image/gif')]])).toEqual([]);
  });

  it('limits comments to 1,250 characters', () => {
    expect(problems(platform, {}, ['post', []], ['é'.repeat(1250), []])).toEqual([]);
    expect(problems(platform, {}, ['post', []], ['é'.repeat(1251), []]))
      .toEqual(['part 2 has 1251 characters; a LinkedIn comment takes at most 1250']);
  });
});
