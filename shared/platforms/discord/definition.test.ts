import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { discord } from './definition.ts';

const mebibyte = 1024 * 1024;
const file = (sizeBytes: number | null, kind: 'image' | 'video' = 'image'): MediaFacts => ({
  kind,
  mimeType: kind === 'image' ? 'image/png' : 'video/mp4',
  width: 640,
  height: 480,
  durationSeconds: kind === 'video' ? 10 : null,
  sizeBytes,
});
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const settings = { channel: '1200000000000000001' };
const messages = (parts: PostPartFacts[]) =>
  validatePlatformPost(discord, { settings, parts }).problems.map((problem) => problem.message);

/** Discord's file limits (open-and-community.md 8.3), as POST /posts checks them before anything is queued. */
describe('Discord post rules', () => {
  it('takes files up to 10 MiB, and refuses a larger image or video naming its size', () => {
    expect(messages([part('ok', [file(10 * mebibyte), file(10 * mebibyte, 'video')])])).toEqual([]);
    expect(messages([part('big', [file(10 * mebibyte + 1)]), part('big video', [file(12 * mebibyte, 'video')])]))
      .toEqual([
        'part 1, media 1: the image is 10.1 MB; Discord takes images up to 10 MB',
        'part 2, media 1: the video is 12 MB; Discord takes videos up to 10 MB',
      ]);
  });

  it('refuses files that add up to more than 25 MiB in one message', () => {
    const three = [file(9 * mebibyte), file(9 * mebibyte), file(9 * mebibyte)];
    expect(messages([part('three', three)])).toEqual([
      'part 1: the files add up to 27 MiB; Discord takes at most 25 MiB in one message',
    ]);
  });

  it('waits for the size of a file still being imported rather than refusing it', () => {
    expect(messages([part('importing', [file(null)])])).toEqual([]);
  });
});
