import { describe, expect, it } from 'vitest';
import { instagramStandalone } from '../instagram-standalone/definition.ts';
import type { MediaFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { instagram } from './definition.ts';

function image(mimeType: string, sizeBytes = 500_000): MediaFacts {
  return { kind: 'image', mimeType, width: 1080, height: 1350, durationSeconds: null, sizeBytes };
}

function video(mimeType: string, sizeBytes = 5_000_000): MediaFacts {
  return { kind: 'video', mimeType, width: 1080, height: 1920, durationSeconds: 20, sizeBytes };
}

const messages = (platform: typeof instagram, media: MediaFacts[], settings: Record<string, unknown> = {}) =>
  validatePlatformPost(platform, { settings, parts: [{ text: 'caption', media }] })
    .problems.map((problem) => problem.message);

/** What Instagram's servers refuse when they fetch the files, checked when the post is created. */
describe.each([instagram, instagramStandalone])('$identifier media files', (platform) => {
  it('takes JPEG images of up to 8 MiB and MP4 or MOV videos of up to 300 MB', () => {
    expect(messages(platform, [image('image/jpeg', 8 * 1024 * 1024)])).toEqual([]);
    expect(messages(platform, [video('video/mp4', 300_000_000)])).toEqual([]);
    expect(messages(platform, [video('video/quicktime')], { type: 'story' })).toEqual([]);
    expect(messages(platform, Array.from({ length: 10 }, () => image('image/jpeg')))).toEqual([]);
  });

  it('refuses other image formats, in a carousel and a story too', () => {
    expect(messages(platform, [image('image/png')])).toEqual([
      'part 1 media 1 is image/png; Instagram publishes JPEG images only',
    ]);
    expect(messages(platform, [image('image/jpeg'), image('image/webp')])).toEqual([
      'part 1 media 2 is image/webp; Instagram publishes JPEG images only',
    ]);
    expect(messages(platform, [image('image/gif')], { type: 'story' })).toEqual([
      'part 1 media 1 is image/gif; Instagram publishes JPEG images only',
    ]);
  });

  it('refuses files over Instagram’s sizes and videos that are not MP4 or MOV', () => {
    expect(messages(platform, [image('image/jpeg', 8 * 1024 * 1024 + 1)])).toEqual([
      'part 1 media 1 has 8388609 bytes; Instagram downloads images of at most 8 MiB',
    ]);
    expect(messages(platform, [video('video/mp4', 300_000_001)])).toEqual([
      'part 1 media 1 has 300000001 bytes; Instagram videos are at most 300 MB',
    ]);
    expect(messages(platform, [video('video/webm')])).toEqual([
      'part 1 media 1 is video/webm; Instagram videos are MP4 or MOV',
    ]);
  });

  it('still caps a carousel at 10 items', () => {
    expect(messages(platform, Array.from({ length: 11 }, () => image('image/jpeg')))[0]).toBe(
      'part 1 has 11 media; Instagram needs 1 to 10 images or videos',
    );
  });
});
