import { describe, expect, it } from 'vitest';
import { mediaSizeProblems } from './media-size-limits.ts';
import type { MediaFacts } from './platform-definition.ts';

const file = (kind: 'image' | 'video', mimeType: string, sizeBytes: number | null): MediaFacts =>
  ({ kind, mimeType, width: 100, height: 100, durationSeconds: kind === 'video' ? 5 : null, sizeBytes });
const mb = 1024 * 1024;

describe('mediaSizeProblems', () => {
  it('names each file over its kind\'s limit, with GIFs judged by their own limit where there is one', () => {
    const parts = [
      { text: 'a', media: [file('image', 'image/png', 5 * mb), file('image', 'image/png', 5 * mb + 1)] },
      { text: 'b', media: [file('image', 'image/gif', 12 * mb), file('video', 'video/mp4', 600 * mb)] },
    ];
    expect(mediaSizeProblems(parts, { image: 5 * mb, gif: 15 * mb, video: 512 * mb }, 'X')).toEqual([
      'part 1, media 2: the image is 5.1 MB; X takes images up to 5 MB',
      'part 2, media 2: the video is 600 MB; X takes videos up to 512 MB',
    ]);
    expect(mediaSizeProblems(parts, { image: 5 * mb }, 'X')).toEqual([
      'part 1, media 2: the image is 5.1 MB; X takes images up to 5 MB',
      'part 2, media 1: the image is 12 MB; X takes images up to 5 MB',
    ]);
  });

  it('leaves files of unknown size and kinds without a limit to the platform', () => {
    const parts = [{ text: 'a', media: [file('image', 'image/jpeg', null), file('video', 'video/mp4', 900 * mb)] }];
    expect(mediaSizeProblems(parts, { image: 1 }, 'Mastodon')).toEqual([]);
  });
});
