import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { youtube } from './definition.ts';

const megabyte = 1024 * 1024;
const video = (): MediaFacts => (
  { kind: 'video', mimeType: 'video/mp4', width: 1920, height: 1080, durationSeconds: 30, sizeBytes: 9 * megabyte }
);
const image = (mimeType = 'image/jpeg', sizeBytes: number | null = megabyte): MediaFacts => (
  { kind: 'image', mimeType, width: 1280, height: 720, durationSeconds: null, sizeBytes }
);
const messages = (settings: Record<string, unknown>, parts: PostPartFacts[]) => (
  validatePlatformPost(youtube, { settings, parts }).problems.map((problem) => problem.message)
);
const titled = { title: 'A video' };

/** What POST /posts checks of a YouTube post beyond the shared rules (oauth-majors-rules.test.ts). */
describe('YouTube post rules', () => {
  it('takes one JPEG or PNG image beside the video as its thumbnail', () => {
    expect(messages(titled, [{ text: 'd', media: [video(), image()] }])).toEqual([]);
    expect(messages(titled, [{ text: 'd', media: [image('image/png'), video()] }])).toEqual([]);
  });

  it('refuses a second image, a thumbnail of another type, and one over 2 MB', () => {
    expect(messages(titled, [{ text: 'd', media: [video(), image(), image()] }])).toEqual([
      'part 1 has 2 images and 1 videos; YouTube takes exactly 1 video and at most 1 image, its thumbnail',
    ]);
    expect(messages(titled, [{ text: 'd', media: [video(), image('image/webp')] }])).toEqual([
      'part 1 has a image/webp image; a YouTube thumbnail must be a JPEG or PNG image',
    ]);
    expect(messages(titled, [{ text: 'd', media: [video(), image('image/png', 2 * megabyte + 1)] }])).toEqual([
      'part 1, media 2: the image is 2.1 MB; YouTube takes images up to 2 MB',
    ]);
  });

  it('takes a playlist id and refuses what cannot be one', () => {
    const playlistId = 'PLrAXtmErZgOeiKm4sgNOknGvNjby9efdf';
    expect(messages({ ...titled, playlistId }, [{ text: 'd', media: [video()] }])).toEqual([]);
    expect(messages({ ...titled, playlistId: 'not a playlist' }, [{ text: 'd', media: [video()] }])).toEqual([
      'must be a YouTube playlist id (the playlists tool lists them)',
    ]);
  });

  it('declares the playlists tool', () => {
    expect(youtube.tools.map((tool) => tool.methodName)).toEqual(['playlists']);
  });
});
