import { describe, expect, it } from 'vitest';
import type { MediaFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { x } from './definition.ts';

const megabytes = 1024 * 1024;

function file(mimeType: string, sizeBytes: number | null): MediaFacts {
  const kind = mimeType.startsWith('video/') ? 'video' : 'image';
  const durationSeconds = kind === 'video' ? 10 : null;
  return { kind, mimeType, width: 640, height: 480, durationSeconds, sizeBytes };
}

function problems(...media: MediaFacts[]): string[] {
  return validatePlatformPost(x, { settings: {}, parts: [{ text: 'hello', media }] }).problems.map((p) => p.message);
}

describe('X media rules', () => {
  it('takes images up to 5 MB, a GIF up to 15 MB and a video up to 512 MB', () => {
    expect(problems(file('image/png', 5 * megabytes), file('image/jpeg', 1), file('image/webp', 1))).toEqual([]);
    expect(problems(file('image/gif', 15 * megabytes))).toEqual([]);
    expect(problems(file('video/mp4', 512 * megabytes))).toEqual([]);
    expect(problems(file('video/quicktime', 1_000))).toEqual([]);
  });

  it('refuses a file one byte over its kind\'s limit, naming the limit', () => {
    expect(problems(file('image/png', 5 * megabytes + 1)))
      .toEqual(['part 1, media 1: the image is 5.1 MB; X takes images up to 5 MB']);
    expect(problems(file('image/gif', 15 * megabytes + 1)))
      .toEqual(['part 1, media 1: the GIF is 15.1 MB; X takes GIFs up to 15 MB']);
    expect(problems(file('video/mp4', 512 * megabytes + 1)))
      .toEqual(['part 1, media 1: the video is 512.1 MB; X takes videos up to 512 MB']);
  });

  it('refuses types X does not take', () => {
    expect(problems(file('image/bmp', 100)))
      .toEqual(['part 1 has a file of type image/bmp; X takes JPG, PNG, WebP, GIF, MP4 and MOV']);
    expect(problems(file('video/webm', 100))).toHaveLength(1);
  });

  it('judges a file whose size is not known yet (an import still fetching) by its type alone', () => {
    expect(problems(file('image/png', null))).toEqual([]);
  });
});
