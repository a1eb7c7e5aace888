import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { threads } from './definition.ts';

const megabyte = 1024 * 1024;
const image = (extra: Partial<MediaFacts> = {}): MediaFacts => ({
  kind: 'image', mimeType: 'image/jpeg', width: 1080, height: 1350, durationSeconds: null, sizeBytes: 500_000, ...extra,
});
const video = (extra: Partial<MediaFacts> = {}): MediaFacts => ({
  kind: 'video', mimeType: 'video/mp4', width: 1080, height: 1920, durationSeconds: 30, sizeBytes: 20 * megabyte,
  videoCodec: 'h264', audioCodec: 'aac', frameRate: 30, ...extra,
});
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const problems = (parts: PostPartFacts[], settings: Record<string, unknown> = {}) =>
  validatePlatformPost(threads, { settings, parts }).problems.map((problem) => problem.message);

/** Facts: ../shared/platforms/oauth-majors.md, section 6; POST /posts answers these before anything is queued. */
describe('Threads post rules', () => {
  it('takes 500 characters per part and refuses 501', () => {
    expect(problems([part('a'.repeat(500)), part('é'.repeat(500))])).toEqual([]);
    expect(problems([part('a'.repeat(501))])).toEqual(['has 501 characters; Threads allows 500']);
  });

  it('takes JPEG and PNG images and MP4 and MOV videos, nothing else', () => {
    const accepted = [image(), image({ mimeType: 'image/png' }), video(), video({ mimeType: 'video/quicktime' })];
    expect(problems([part('ok', accepted)])).toEqual([]);
    expect(problems([part('gif', [image({ mimeType: 'image/gif' }), image({ mimeType: 'image/webp' })])])).toEqual([
      'part 1, media 1 is image/gif; Threads takes JPEG and PNG images, MP4 and MOV videos',
      'part 1, media 2 is image/webp; Threads takes JPEG and PNG images, MP4 and MOV videos',
    ]);
    expect(problems([part('webm', [video({ mimeType: 'video/webm' })])])).toHaveLength(1);
  });

  it('refuses an image over 8 MB and a video over 1 GB', () => {
    const limits = [image({ sizeBytes: 8 * megabyte }), video({ sizeBytes: 1024 * megabyte })];
    expect(problems([part('at the limits', limits)])).toEqual([]);
    const big = part('big', [image({ sizeBytes: 8 * megabyte + 1 })]);
    const huge = part('huge', [video({ sizeBytes: 1025 * megabyte })]);
    expect(problems([big, huge]))
      .toEqual([
        'part 1, media 1: the image is 8.1 MB; Threads takes images up to 8 MB',
        'part 2, media 1: the video is 1025 MB; Threads takes videos up to 1 GB',
      ]);
  });

  it('refuses a video longer than 5 minutes', () => {
    expect(problems([part('five minutes', [video({ durationSeconds: 300 })])])).toEqual([]);
    expect(problems([part('longer', [video({ durationSeconds: 301 })])])[0]).toMatch(/it lasts 301 seconds, over 300/);
  });

  it('takes a carousel of up to 20 files and refuses 21', () => {
    expect(problems([part('carousel', Array.from({ length: 20 }, () => image()))])).toEqual([]);
    expect(problems([part('too many', Array.from({ length: 21 }, () => image()))]))
      .toEqual(['part 1 has 21 media; Threads takes at most 20 per post']);
  });

  it('refuses an image longer than 10:1 and a video wider than 1920 pixels', () => {
    const shapes = [image({ width: 3000, height: 290 }), video({ width: 2560, height: 1440 })];
    expect(problems([part('strip', shapes)])).toEqual([
      'part 1, media 1: the image is 3000x290; Threads takes at most 10:1',
      'part 1, media 2: the video is 2560 pixels wide; Threads takes at most 1920',
    ]);
  });

  it('previews a link attachment only on a text-only first part', () => {
    const settings = { link_attachment: 'https://example.com/story' };
    expect(problems([part('a link')], settings)).toEqual([]);
    expect(problems([part('a link', [image()])], settings))
      .toEqual(['part 1 has media and a link attachment; Threads previews a link only on a text-only post']);
  });
});
