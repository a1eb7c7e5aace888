import { describe, expect, it } from 'vitest';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';
import { vk } from './definition.ts';

const megabyte = 1024 * 1024;
const photo = (mimeType = 'image/jpeg', sizeBytes: number | null = 2 * megabyte): MediaFacts => (
  { kind: 'image', mimeType, width: 1200, height: 800, durationSeconds: null, sizeBytes }
);
const video = (mimeType = 'video/mp4'): MediaFacts => (
  { kind: 'video', mimeType, width: 1280, height: 720, durationSeconds: 30, sizeBytes: 40 * megabyte }
);
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const messages = (settings: Record<string, unknown>, parts: PostPartFacts[]) => (
  validatePlatformPost(vk, { settings, parts }).problems.map((problem) => problem.message)
);

/** VK's media rules (open-and-community.md 5.3), as POST /posts checks them before anything is queued. */
describe('VK post rules', () => {
  it('takes photos up to 50 MB and refuses a larger one, naming its size', () => {
    expect(messages({}, [part('ok', [photo('image/png', 50 * megabyte)])])).toEqual([]);
    expect(messages({}, [part('big', [photo('image/png', 60 * megabyte)])])).toEqual([
      'part 1 has a photo of 60.0 MB; VK takes photos up to 50 MB',
    ]);
  });

  it('waits for the size of a photo still being imported rather than refusing it', () => {
    expect(messages({}, [part('importing', [photo('image/gif', null)])])).toEqual([]);
  });

  const containers = [
    'video/mp4', 'video/quicktime', 'video/x-msvideo', 'video/3gpp', 'video/mpeg', 'video/x-flv', 'video/x-ms-wmv',
  ];
  it.each(containers)(
    'takes a %s video',
    (mimeType) => {
      expect(messages({}, [part('clip', [video(mimeType)])])).toEqual([]);
    },
  );

  it('refuses a video container VK does not take', () => {
    expect(messages({}, [part('clip', [video('video/webm')])])).toEqual([
      'part 1 has a video/webm video; VK takes AVI, MP4, 3GP, MPEG, MOV, FLV or WMV',
    ]);
  });

  it('counts photos and videos together against 10 per post and per comment', () => {
    const nine = Array.from({ length: 9 }, () => photo());
    expect(messages({}, [part('post', [...nine, video()]), part('comment', [...nine, video()])])).toEqual([]);
    expect(messages({}, [part('post'), part('comment', [...nine, video(), photo()])])).toEqual([
      'part 2 has 11 media; VK takes at most 10 per post',
    ]);
  });

  it('takes a community to post to by its positive id, and nothing else', () => {
    expect(messages({ community_id: 42, from_group: true }, [part('hello')])).toEqual([]);
    const refused = validatePlatformPost(vk, { settings: { community_id: -42 }, parts: [part('hello')] }).problems;
    expect(refused.map((problem) => problem.path)).toEqual(['settings.community_id']);
  });
});
