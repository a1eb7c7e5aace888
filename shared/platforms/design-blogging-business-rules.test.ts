import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { devto } from './devto/definition.ts';
import { dribbble } from './dribbble/definition.ts';
import { gmb } from './gmb/definition.ts';
import { hashnode } from './hashnode/definition.ts';
import { listmonk } from './listmonk/definition.ts';
import { medium } from './medium/definition.ts';
import type { MediaFacts, PlatformDefinition } from './kit/platform-definition.ts';
import { pinterest } from './pinterest/definition.ts';
import { validatePlatformPost } from './validate-post.ts';
import { wordpress } from './wordpress/definition.ts';

function image(width: number | null = 800, height: number | null = 600, mimeType = 'image/png'): MediaFacts {
  return { kind: 'image', mimeType, width, height, durationSeconds: null, sizeBytes: 100_000 };
}

function video(durationSeconds: number | null = 30): MediaFacts {
  return { kind: 'video', mimeType: 'video/mp4', width: 1080, height: 1920, durationSeconds, sizeBytes: 1_000_000 };
}

function check(platform: PlatformDefinition, settings: Record<string, unknown>, media: MediaFacts[] = [], text = 'Hello') {
  return validatePlatformPost(platform, { settings, parts: [{ text, media }] }).problems;
}

function paths(platform: PlatformDefinition, settings: Record<string, unknown>, media: MediaFacts[] = []) {
  return check(platform, settings, media).map((problem) => problem.path);
}

function messages(platform: PlatformDefinition, settings: Record<string, unknown>, media: MediaFacts[] = []) {
  return check(platform, settings, media).map((problem) => problem.message).join(' | ');
}

const all = [pinterest, dribbble, medium, devto, hashnode, wordpress, gmb, listmonk];

describe('design, blogging and business platforms', () => {
  it.each(all.map((platform) => [platform.identifier, platform] as const))('%s has a settings schema that converts to JSON Schema', (_, platform) => {
    expect(platform.settings).not.toBeNull();
    if (platform.settings !== null) expect(z.toJSONSchema(platform.settings)).toHaveProperty('properties');
    expect(platform.replies).toBe('none');
  });

  it('refuses a second part everywhere', () => {
    const problems = validatePlatformPost(listmonk, { settings: { subject: 'Hi', lists: [1] }, parts: [{ text: 'a', media: [] }, { text: 'b', media: [] }] }).problems;
    expect(problems.map((problem) => problem.path)).toEqual(['value.1']);
  });
});

describe('pinterest', () => {
  const settings = { board_id: '123456' };
  it('accepts a pin with 1 image and a board', () => { expect(check(pinterest, settings, [image()])).toEqual([]); });
  it('accepts a carousel of 5 images', () => { expect(check(pinterest, settings, Array.from({ length: 5 }, () => image()))).toEqual([]); });
  it('accepts a video with a cover frame', () => { expect(check(pinterest, { ...settings, cover_image_key_frame_time: 2 }, [video()])).toEqual([]); });
  it('takes a numeric board, or none for the channel\'s own board', () => {
    expect(check(pinterest, {}, [image()])).toEqual([]);
    expect(paths(pinterest, { board_id: 'my-board' }, [image()])).toEqual(['settings.board_id']);
  });
  it('takes PNG and JPEG images only', () => {
    expect(check(pinterest, settings, [image(800, 600, 'image/jpeg'), image()])).toEqual([]);
    expect(messages(pinterest, settings, [image(800, 600, 'image/gif'), image(800, 600, 'image/webp')]))
      .toBe('Pinterest takes PNG or JPEG images only, not image/gif, image/webp');
  });
  it('takes a carousel of one image size', () => {
    expect(messages(pinterest, settings, [image(800, 600), image(600, 800), image(null, null)]))
      .toBe('the carousel\'s images have different sizes (800x600, 600x800); Pinterest takes images of one size');
  });
  it('refuses an image over 20 MB', () => {
    const big = { ...image(), sizeBytes: 20 * 1024 * 1024 + 1 };
    expect(messages(pinterest, settings, [big])).toContain('Pinterest takes images up to 20');
  });
  it('bounds the title', () => { expect(paths(pinterest, { ...settings, title: 'x'.repeat(101) }, [image()])).toEqual(['settings.title']); });
  it('needs 1 to 5 media', () => {
    expect(messages(pinterest, settings)).toContain('Pinterest takes 1 to 5');
    expect(messages(pinterest, settings, Array.from({ length: 6 }, () => image()))).toBe('part 1 has 6 media; Pinterest takes 1 to 5');
  });
  it('takes a video alone', () => { expect(messages(pinterest, { ...settings, cover_image_key_frame_time: 0 }, [video(), image()])).toContain('video pin'); });
  it('checks video duration', () => {
    expect(messages(pinterest, { ...settings, cover_image_key_frame_time: 0 }, [video(2)])).toContain('4 seconds to 15 minutes');
    expect(messages(pinterest, { ...settings, cover_image_key_frame_time: 0 }, [video(901)])).toContain('4 seconds to 15 minutes');
  });
  it('needs a cover for a video', () => { expect(messages(pinterest, settings, [video()])).toContain('needs a cover'); });
  it('refuses text over 500 characters', () => {
    expect(check(pinterest, settings, [image()], 'x'.repeat(501)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('dribbble', () => {
  const settings = { title: 'Dashboard concept' };
  it('accepts one 800x600 or 400x300 image', () => {
    expect(check(dribbble, settings, [image(800, 600)])).toEqual([]);
    expect(check(dribbble, { ...settings, tags: ['ui'], team_id: 7, low_profile: true }, [image(400, 300)])).toEqual([]);
  });
  it('requires a title', () => { expect(paths(dribbble, { title: ' ' }, [image()])).toEqual(['settings.title']); });
  it('takes at most 12 tags', () => { expect(paths(dribbble, { ...settings, tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }, [image()])).toEqual(['settings.tags']); });
  it('takes tags without commas', () => {
    expect(paths(dribbble, { ...settings, tags: ['ui', 'dark, light'] }, [image()])).toEqual(['settings.tags.1']);
  });
  it('needs exactly one image', () => {
    expect(messages(dribbble, settings)).toContain('Dribbble takes exactly 1');
    expect(messages(dribbble, settings, [image(), image()])).toContain('Dribbble takes exactly 1');
  });
  it('refuses video', () => { expect(messages(dribbble, settings, [video()])).toContain('no video'); });
  it('refuses other sizes', () => { expect(messages(dribbble, settings, [image(1600, 1200)])).toBe('the image is 1600x1200; Dribbble takes only 400x300 or 800x600'); });
  it('takes GIF, JPG and PNG only: WebP, AVIF, BMP and TIFF are refused', () => {
    expect(check(dribbble, settings, [image(800, 600, 'image/gif')])).toEqual([]);
    expect(check(dribbble, settings, [image(400, 300, 'image/jpeg')])).toEqual([]);
    for (const type of ['image/webp', 'image/avif', 'image/bmp', 'image/tiff']) {
      expect(messages(dribbble, settings, [image(800, 600, type)]))
        .toBe(`the image is ${type}; Dribbble takes only GIF, JPG or PNG images`);
    }
  });
  it('refuses an image of unknown size', () => { expect(messages(dribbble, settings, [image(null, null)])).toContain('size is unknown'); });
  it('refuses text over 40000 characters', () => {
    expect(check(dribbble, settings, [image()], 'x'.repeat(40001)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('medium', () => {
  const settings = { title: 'A story' };
  it('accepts a story with a title and images', () => {
    expect(check(medium, { ...settings, tags: ['a', 'b', 'c'], publishStatus: 'draft', license: 'cc-40-by' }, [image()])).toEqual([]);
  });
  it('requires a title of at most 100 characters', () => {
    expect(paths(medium, {})).toEqual(['settings.title']);
    expect(paths(medium, { title: 'x'.repeat(101) })).toEqual(['settings.title']);
  });
  it('takes at most 3 tags', () => { expect(paths(medium, { ...settings, tags: ['a', 'b', 'c', 'd'] })).toEqual(['settings.tags']); });
  it('refuses an unknown licence', () => { expect(paths(medium, { ...settings, license: 'mine' })).toEqual(['settings.license']); });
  it('refuses video', () => { expect(messages(medium, settings, [video()])).toContain('Medium stories take images only'); });
  it('refuses text over 100000 characters', () => {
    expect(check(medium, settings, [], 'x'.repeat(100001)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('devto', () => {
  const settings = { title: 'An article' };
  it('accepts an article with up to 4 tags', () => {
    expect(check(devto, { ...settings, tags: ['typescript', 'node', 'webdev', 'api'], organization_id: 3 }, [image()])).toEqual([]);
  });
  it('requires a title', () => { expect(paths(devto, { tags: ['node'] })).toEqual(['settings.title']); });
  it('takes at most 4 tags', () => { expect(paths(devto, { ...settings, tags: ['a', 'b', 'c', 'd', 'e'] })).toEqual(['settings.tags']); });
  it('takes alphanumeric tags only', () => { expect(paths(devto, { ...settings, tags: ['web-dev'] })).toEqual(['settings.tags.0']); });
  it('refuses video', () => { expect(messages(devto, settings, [video()])).toContain('Dev.to articles take images only'); });
  it('refuses text over 100000 characters', () => {
    expect(check(devto, settings, [], 'x'.repeat(100001)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('hashnode', () => {
  const settings = { title: 'A post', publicationId: '64a1b2c3d4e5f60718293a4b', tags: [{ slug: 'javascript' }] };
  it('accepts a post with title, publication and a tag', () => { expect(check(hashnode, settings, [image()])).toEqual([]); });
  it('requires a publication', () => {
    expect(paths(hashnode, { ...settings, publicationId: undefined })).toEqual(['settings.publicationId']);
    expect(paths(hashnode, { ...settings, publicationId: 'nope' })).toEqual(['settings.publicationId']);
  });
  it('requires a title', () => { expect(paths(hashnode, { ...settings, title: '' })).toEqual(['settings.title']); });
  it('requires 1 to 15 tags', () => {
    expect(paths(hashnode, { ...settings, tags: [] })).toEqual(['settings.tags']);
    expect(paths(hashnode, { ...settings, tags: Array.from({ length: 16 }, (_, i) => ({ slug: `t${i}` })) })).toEqual(['settings.tags']);
  });
  it('refuses video', () => { expect(messages(hashnode, settings, [video()])).toContain('Hashnode takes images only'); });
  it('refuses text over 10000 characters', () => {
    expect(check(hashnode, settings, [], 'x'.repeat(10001)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('wordpress', () => {
  const settings = { title: 'A post', post_type: 'posts' };
  it('accepts a post with images and video', () => {
    expect(check(wordpress, { ...settings, status: 'draft', categories: [1, 4], sticky: true }, [image(), video()])).toEqual([]);
  });
  it('requires a title and a post type', () => {
    expect(paths(wordpress, { post_type: 'pages' })).toEqual(['settings.title']);
    expect(paths(wordpress, { title: 'A page' })).toEqual(['settings.post_type']);
  });
  it('refuses an unknown status', () => { expect(paths(wordpress, { ...settings, status: 'future' })).toEqual(['settings.status']); });
  it('keeps sticky to posts', () => { expect(messages(wordpress, { title: 'A page', post_type: 'pages', sticky: true })).toContain('posts only'); });
  it('refuses text over 100000 characters', () => {
    expect(check(wordpress, settings, [], 'x'.repeat(100001)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('gmb', () => {
  const standard = { topicType: 'STANDARD', callToAction: { actionType: 'LEARN_MORE', url: 'https://example.com' } };
  const event = { title: 'Open day', startDate: '2030-05-01', startTime: '10:00', endDate: '2030-05-01', endTime: '16:00' };
  it('accepts a standard post with one image and a button', () => { expect(check(gmb, standard, [image()])).toEqual([]); });
  it('accepts an event and an offer with dates', () => {
    expect(check(gmb, { topicType: 'EVENT', event })).toEqual([]);
    expect(check(gmb, { topicType: 'OFFER', event, offer: { couponCode: 'SPRING' } })).toEqual([]);
    expect(check(gmb, { topicType: 'STANDARD', callToAction: { actionType: 'CALL' } })).toEqual([]);
  });
  it('requires a known post type', () => {
    expect(paths(gmb, {})).toEqual(['settings.topicType']);
    expect(paths(gmb, { topicType: 'PRODUCT' })).toEqual(['settings.topicType']);
  });
  it('checks event dates', () => { expect(paths(gmb, { topicType: 'EVENT', event: { ...event, startDate: '1 May' } })).toEqual(['settings.event.startDate']); });
  it('takes at most 1 image and no video', () => {
    expect(messages(gmb, standard, [image(), image()])).toContain('at most 1');
    expect(messages(gmb, standard, [video()])).toContain('no video');
  });
  it('takes JPG or PNG of at least 250x250', () => {
    expect(messages(gmb, standard, [image(800, 600, 'image/gif')])).toContain('JPG or PNG');
    expect(messages(gmb, standard, [image(200, 600)])).toContain('at least 250x250');
  });
  it('needs event details for EVENT and OFFER posts', () => {
    expect(messages(gmb, { topicType: 'EVENT' })).toContain('EVENT post needs event');
    expect(messages(gmb, { topicType: 'OFFER' })).toContain('OFFER post needs event');
    expect(messages(gmb, { topicType: 'EVENT', event: { ...event, endDate: '2030-04-30' } })).toContain('ends before it starts');
  });
  it('keeps offer and alert fields to their post types', () => {
    expect(messages(gmb, { topicType: 'STANDARD', offer: { couponCode: 'X' } })).toContain('OFFER posts only');
    expect(messages(gmb, { topicType: 'EVENT', event, alertType: 'COVID_19' })).toContain('ALERT posts only');
  });
  it('checks the call-to-action', () => {
    expect(messages(gmb, { topicType: 'STANDARD', callToAction: { actionType: 'BOOK' } })).toContain('needs a url');
    expect(messages(gmb, { topicType: 'STANDARD', callToAction: { actionType: 'CALL', url: 'https://example.com' } })).toContain('takes no url');
    expect(messages(gmb, { topicType: 'OFFER', event, callToAction: standard.callToAction })).toContain('OFFER posts');
    expect(paths(gmb, { topicType: 'STANDARD', callToAction: { actionType: 'GET_OFFER' } })).toEqual(['settings.callToAction.actionType']);
  });
  it('refuses text over 1500 characters', () => {
    expect(check(gmb, standard, [], 'x'.repeat(1501)).map((problem) => problem.path)).toEqual(['value.0.content']);
  });
});

describe('listmonk', () => {
  const settings = { subject: 'Our news', lists: [1, 2] };
  it('accepts a campaign with a subject and lists', () => {
    expect(check(listmonk, { ...settings, content_type: 'html', template_id: 3 }, [image()], '<p>Hello {{ .Subscriber.FirstName }}</p>')).toEqual([]);
  });
  it('takes the post\'s first line when no subject is set, but refuses an empty one', () => {
    expect(paths(listmonk, { lists: [1] })).toEqual([]);
    expect(paths(listmonk, { lists: [1], subject: ' ' })).toEqual(['settings.subject']);
  });
  it('takes PNG, JPEG and GIF images, no video', () => {
    const images = [image(), image(800, 600, 'image/jpeg'), image(800, 600, 'image/gif')];
    expect(check(listmonk, settings, images)).toEqual([]);
    expect(messages(listmonk, settings, [video()])).toContain('images only');
    expect(messages(listmonk, settings, [image(800, 600, 'image/webp')])).toContain('not image/webp');
  });
  it('requires at least one list', () => {
    expect(paths(listmonk, { subject: 'Hi' })).toEqual(['settings.lists']);
    expect(paths(listmonk, { subject: 'Hi', lists: [] })).toEqual(['settings.lists']);
  });
  it('refuses an unknown content type', () => { expect(paths(listmonk, { ...settings, content_type: 'visual' })).toEqual(['settings.content_type']); });
  it('bounds the subject', () => { expect(paths(listmonk, { ...settings, subject: 'x'.repeat(5001) })).toEqual(['settings.subject']); });
});
