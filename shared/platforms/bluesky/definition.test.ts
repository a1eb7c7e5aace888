import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { bluesky, maxImageBytes, maxVideoBytes } from './definition.ts';

const image = (sizeBytes: number | null = 100_000): MediaFacts => ({
  kind: 'image',
  mimeType: 'image/png',
  width: 64,
  height: 48,
  durationSeconds: null,
  sizeBytes,
});
const video = (sizeBytes = 100_000, mimeType = 'video/mp4', durationSeconds = 2): MediaFacts => ({
  kind: 'video',
  mimeType,
  width: 320,
  height: 240,
  durationSeconds,
  sizeBytes,
  videoCodec: 'h264',
  audioCodec: 'aac',
  frameRate: 30,
});
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const messages = (parts: PostPartFacts[], settings: Record<string, unknown> = {}) =>
  validatePlatformPost(bluesky, { settings, parts }).problems.map((problem) => problem.message);

describe('Bluesky post rules', () => {
  it('counts graphemes up to 300, and refuses text over 3000 bytes', () => {
    const family = '👨‍👩‍👧';
    expect(messages([part('e\u0301'.repeat(300))])).toEqual([]);
    expect(messages([part('e\u0301'.repeat(301))])).toHaveLength(1);
    // 167 family emoji are 167 graphemes but 3006 bytes.
    expect(messages([part(family.repeat(167))])).toEqual([
      'part 1 has 3006 bytes of text; Bluesky takes at most 3000',
    ]);
  });

  it('takes up to 4 images or one video, never both', () => {
    expect(messages([part('four', [image(), image(), image(), image()])])).toEqual([]);
    expect(messages([part('five', [image(), image(), image(), image(), image()])])).toEqual([
      'part 1 has 5 images; Bluesky takes at most 4 images or 1 video',
    ]);
    expect(messages([part('mixed', [image(), video()])])).toEqual([
      'part 1 mixes images and a video; Bluesky takes at most 4 images or 1 video',
    ]);
    expect(messages([part('two', [video(), video()])])).toEqual([
      'part 1 has 2 videos; Bluesky takes at most 4 images or 1 video',
    ]);
  });

  it('refuses images over the lexicon\'s 2,000,000 bytes and videos over the PDS\'s 50 MB', () => {
    expect(messages([part('at the limits', [image(maxImageBytes)])])).toEqual([]);
    expect(messages([part('video at the limit', [video(maxVideoBytes)])])).toEqual([]);
    expect(messages([part('big image', [image(maxImageBytes + 1)])])).toEqual([
      'part 1 has an image of 2000001 bytes; Bluesky takes images of at most 2000000 bytes',
    ]);
    expect(messages([part('big video', [video(maxVideoBytes + 1)])])).toEqual([
      'part 1 has a video of 52428801 bytes; Bluesky takes videos of at most 52428800 bytes (50 MB)',
    ]);
    // An import still being fetched has no size yet: judged once it is stored.
    expect(messages([part('importing', [image(null)])])).toEqual([]);
  });

  it('takes MP4 videos of at most 3 minutes only', () => {
    expect(messages([part('webm', [video(100_000, 'video/webm')])])).toEqual([
      'part 1 has a video/webm video; Bluesky takes MP4 videos only',
    ]);
    expect(messages([part('long', [video(100_000, 'video/mp4', 181)])])).toHaveLength(1);
  });

  it('checks the languages and tags settings', () => {
    expect(messages([part('hi')], { langs: ['en', 'pt-BR'], tags: ['sps'] })).toEqual([]);
    expect(messages([part('hi')], { langs: ['en', 'de', 'fr', 'it'] })).toHaveLength(1);
    expect(messages([part('hi')], { tags: ['#sps'] })).toHaveLength(1);
  });
});
