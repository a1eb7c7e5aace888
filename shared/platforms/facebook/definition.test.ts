import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { facebook } from './definition.ts';

const image = (mimeType = 'image/jpeg', sizeBytes: number | null = 300_000): MediaFacts => (
  { kind: 'image', mimeType, width: 1200, height: 900, durationSeconds: null, sizeBytes }
);
const video = (durationSeconds: number | null = 30, sizeBytes: number | null = 5_000_000): MediaFacts => (
  { kind: 'video', mimeType: 'video/mp4', width: 1280, height: 720, durationSeconds, sizeBytes }
);
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const problems = (settings: Record<string, unknown>, parts: PostPartFacts[]) =>
  validatePlatformPost(facebook, { settings, parts }).problems.map((problem) => problem.message);

describe('Facebook rules at POST /posts', () => {
  it('takes JPEG, PNG, GIF, BMP and TIFF photos of up to 4 MB, and videos of up to 1 GB and 20 minutes', () => {
    const photos = ['image/jpeg', 'image/png', 'image/gif', 'image/bmp', 'image/tiff'].map((type) => image(type));
    expect(problems({}, [part('album', photos)])).toEqual([]);
    expect(problems({}, [part('big enough', [image('image/png', 4_000_000)])])).toEqual([]);
    expect(problems({}, [part('film', [video(20 * 60, 1_000_000_000)])])).toEqual([]);
  });

  it('refuses a photo over 4 MB or of another format, in the post or in a comment', () => {
    expect(problems({}, [part('heavy', [image('image/png', 4_200_000)])])).toEqual([
      'part 1 has a 4.2 MB image; a Facebook photo is at most 4 MB',
    ]);
    expect(problems({}, [part('post'), part('comment', [image('image/webp')])])).toEqual([
      'part 2 has an image of type image/webp; Facebook takes JPEG, PNG, GIF, BMP or TIFF photos',
    ]);
  });

  it('refuses a video over 1 GB or longer than 20 minutes', () => {
    expect(problems({}, [part('huge', [video(60, 1_200_000_000)])])).toEqual([
      'part 1 has a 1200 MB video; a Facebook video is at most 1 GB',
    ]);
    expect(problems({}, [part('long', [video(21 * 60)])])).toEqual([
      'part 1 has a 1260-second video; a Facebook video lasts at most 20 minutes',
    ]);
  });

  it('refuses a link with photos or a video: a post shares one or shows the other', () => {
    expect(problems({ link: 'https://example.com' }, [part('both', [image()])])).toEqual([
      'part 1 has 1 media and a link; a Facebook post shares a link or shows media, not both',
    ]);
    expect(problems({ link: 'https://example.com' }, [part('just the link')])).toEqual([]);
  });
});
