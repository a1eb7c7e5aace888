import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { facebook } from './facebook/definition.ts';
import { instagram } from './instagram/definition.ts';
import { instagramStandalone } from './instagram-standalone/definition.ts';
import { linkedin } from './linkedin/definition.ts';
import { linkedinPage } from './linkedin-page/definition.ts';
import type { MediaFacts, PlatformDefinition } from './kit/platform-definition.ts';
import { threads } from './threads/definition.ts';
import { tiktok } from './tiktok/definition.ts';
import { validatePlatformPost } from './validate-post.ts';
import { x } from './x/definition.ts';
import { youtube } from './youtube/definition.ts';

function image(mimeType = 'image/png', width = 1000, height = 1000): MediaFacts {
  return { kind: 'image', mimeType, width, height, durationSeconds: null, sizeBytes: 100_000 };
}

function video(durationSeconds: number | null = 30, mimeType = 'video/mp4'): MediaFacts {
  return { kind: 'video', mimeType, width: 1080, height: 1920, durationSeconds, sizeBytes: 1_000_000 };
}

function check(platform: PlatformDefinition, settings: Record<string, unknown>, ...parts: [string, MediaFacts[]][]) {
  return validatePlatformPost(platform, { settings, parts: parts.map(([text, media]) => ({ text, media })) });
}

/** The messages of the problems, after asserting there is at least one. */
function problemsOf(result: ReturnType<typeof check>): string[] {
  expect(result.problems.length).toBeGreaterThan(0);
  return result.problems.map((problem) => problem.message);
}

function settingsPaths(result: ReturnType<typeof check>): string[] {
  expect(result.problems.length).toBeGreaterThan(0);
  return result.problems.map((problem) => problem.path);
}

const all = [x, linkedin, linkedinPage, facebook, instagram, instagramStandalone, threads, youtube, tiktok];

describe('oauth-major platforms, shared facts', () => {
  it('have the identifiers, groups, limits and reply modes of the contract', () => {
    expect(all.map((p) => [p.identifier, p.group, p.textLimit, p.replies])).toEqual([
      ['x', 'social', 280, 'thread'],
      ['linkedin', 'social', 3000, 'comment'],
      ['linkedin-page', 'social', 3000, 'comment'],
      ['facebook', 'social', 63206, 'comment'],
      ['instagram', 'social', 2200, 'comment'],
      ['instagram-standalone', 'social', 2200, 'comment'],
      ['threads', 'social', 500, 'thread'],
      ['youtube', 'video', 5000, 'none'],
      ['tiktok', 'video', 2200, 'none'],
    ]);
  });

  it.each(all)('$identifier settings convert to JSON Schema with a description on every field', (platform) => {
    expect(platform.settings).not.toBeNull();
    if (platform.settings === null) return;
    const schema = z.toJSONSchema(platform.settings) as { type: string; properties: Record<string, { description?: string }> };
    expect(schema.type).toBe('object');
    for (const [key, field] of Object.entries(schema.properties)) expect(field.description, key).toBeTruthy();
  });
});

describe('x', () => {
  it('accepts a thread with images, a video and settings', () => {
    const result = check(x, { reply_settings: 'following', made_with_ai: false }, ['hello', [image(), image(), image(), image()]], ['more', [video()]]);
    expect(result.problems).toEqual([]);
    expect(result.settings).toEqual({ reply_settings: 'following', made_with_ai: false });
  });

  it('refuses an unknown reply setting and a bad poll', () => {
    expect(settingsPaths(check(x, { reply_settings: 'nobody' }, ['hi', []]))).toEqual(['settings.reply_settings']);
    expect(settingsPaths(check(x, { poll: { options: ['only one'], duration_minutes: 60 } }, ['hi', []]))[0]).toMatch(/^settings\.poll/);
  });

  it('takes at most 4 images, 1 video, no mix and a GIF alone, in every part', () => {
    expect(problemsOf(check(x, {}, ['a', [image(), image(), image(), image(), image()]]))).toEqual(['part 1 has 5 images; X takes at most 4 images or 1 video']);
    expect(problemsOf(check(x, {}, ['a', []], ['b', [video(), video()]]))[0]).toMatch(/^part 2 has 2 videos/);
    expect(problemsOf(check(x, {}, ['a', [image(), video()]]))[0]).toMatch(/mixes images and a video/);
    expect(problemsOf(check(x, {}, ['a', [image('image/gif'), image()]]))[0]).toMatch(/GIF on its own/);
  });

  it('refuses a poll or a quote together with media, and a poll with a quote', () => {
    const poll = { options: ['yes', 'no'], duration_minutes: 60 };
    expect(check(x, { poll }, ['a', []]).problems).toEqual([]);
    expect(problemsOf(check(x, { poll }, ['a', [image()]]))).toEqual(['part 1 has media and a poll; X takes one or the other']);
    expect(problemsOf(check(x, { quote_tweet_id: '123' }, ['a', [image()]]))[0]).toMatch(/quoted post/);
    expect(problemsOf(check(x, { poll, quote_tweet_id: '123' }, ['a', []]))[0]).toMatch(/poll and a quoted post/);
  });

  it('counts text as X weighs it: URLs 23, CJK 2', () => {
    expect(check(x, {}, ['a'.repeat(280), []]).problems).toEqual([]);
    expect(check(x, {}, ['a'.repeat(281), []]).problems[0]?.path).toBe('value.0.content');
    const url = `https://example.com/${'p'.repeat(200)}`;
    expect(check(x, {}, [`${'a'.repeat(256)} ${url}`, []]).problems).toEqual([]);
    expect(check(x, {}, [`${'a'.repeat(257)} ${url}`, []]).problems).toHaveLength(1);
    expect(check(x, {}, ['漢'.repeat(140), []]).problems).toEqual([]);
    expect(check(x, {}, ['a', []], ['漢'.repeat(141), []]).problems[0]?.path).toBe('value.1.content');
  });
});

describe.each([linkedin, linkedinPage])('$identifier', (platform) => {
  it('accepts images with a comment, a lone video and a carousel', () => {
    expect(check(platform, { isReshareDisabledByAuthor: true }, ['post', [image(), image('image/jpeg')]], ['comment', []]).problems).toEqual([]);
    expect(check(platform, {}, ['post', [video()]]).problems).toEqual([]);
    expect(check(platform, { carousel: true }, ['post', [image(), image()]]).problems).toEqual([]);
  });

  it('refuses a bad setting', () => {
    expect(settingsPaths(check(platform, { carousel: 'yes' }, ['post', []]))).toEqual(['settings.carousel']);
  });

  it('keeps a video as the only media and checks formats', () => {
    expect(problemsOf(check(platform, {}, ['post', [video(), image()]]))[0]).toMatch(/a video must be the only media/);
    expect(problemsOf(check(platform, {}, ['post', [video(), video()]]))[0]).toMatch(/a video must be the only media/);
    expect(problemsOf(check(platform, {}, ['post', [image('image/webp')]]))[0]).toMatch(/JPEG, PNG or GIF/);
    expect(problemsOf(check(platform, {}, ['post', [video(30, 'video/webm')]]))[0]).toMatch(/MP4/);
    expect(problemsOf(check(platform, {}, ['post', Array.from({ length: 21 }, () => image())]))[0]).toMatch(/at most 20/);
  });

  it('needs 2 or more images for a carousel and text-only comments', () => {
    expect(problemsOf(check(platform, { carousel: true }, ['post', [image()]]))[0]).toMatch(/carousel needs 2 or more images/);
    expect(problemsOf(check(platform, {}, ['post', []], ['comment', [image()]]))[0]).toMatch(/^part 2 has media; LinkedIn comments are text only/);
  });

  it('limits text to 3000 characters', () => {
    expect(check(platform, {}, ['é'.repeat(3000), []]).problems).toEqual([]);
    expect(check(platform, {}, ['é'.repeat(3001), []]).problems[0]?.path).toBe('value.0.content');
  });
});

describe('linkedin visibility', () => {
  it('is a member choice; a Page drops it', () => {
    expect(settingsPaths(check(linkedin, { visibility: 'FRIENDS' }, ['post', []]))).toEqual(['settings.visibility']);
    expect(check(linkedinPage, { visibility: 'CONNECTIONS' }, ['post', []]).settings).toEqual({});
  });
});

describe('facebook', () => {
  it('accepts a text post with a link and photos', () => {
    expect(check(facebook, { link: 'https://example.com' }, ['post', []], ['comment', [image()]]).problems).toEqual([]);
    expect(check(facebook, {}, ['post', [image(), image(), image()]]).problems).toEqual([]);
  });

  it('refuses a bad type or link', () => {
    expect(settingsPaths(check(facebook, { type: 'event' }, ['post', []]))).toEqual(['settings.type']);
    expect(settingsPaths(check(facebook, { link: 'not a url' }, ['post', []]))).toEqual(['settings.link']);
  });

  it('refuses Reels and stories at POST /posts, which SPS does not publish yet', () => {
    expect(problemsOf(check(facebook, { type: 'reel' }, ['reel', [video(45)]])))
      .toEqual(['SPS does not publish Facebook Reels yet; publish it as a feed post (type "post")']);
    expect(problemsOf(check(facebook, { type: 'story' }, ['', [image()]])))
      .toEqual(['SPS does not publish Facebook stories yet; publish it as a feed post (type "post")']);
  });

  it('keeps a feed video alone and comments to 1 image', () => {
    expect(problemsOf(check(facebook, {}, ['post', [video(), image()]]))[0]).toMatch(/images or a single video/);
    expect(problemsOf(check(facebook, {}, ['post', []], ['comment', [image(), image()]]))[0]).toMatch(/^part 2 .* at most 1 image/);
    expect(problemsOf(check(facebook, {}, ['post', []], ['comment', [video()]]))[0]).toMatch(/at most 1 image/);
  });

  it('limits text to 63206 characters', () => {
    expect(check(facebook, {}, ['a'.repeat(63206), []]).problems).toEqual([]);
    expect(check(facebook, {}, ['a'.repeat(63207), []]).problems[0]?.path).toBe('value.0.content');
  });
});

describe.each([instagram, instagramStandalone])('$identifier', (platform) => {
  it('accepts an image, a carousel, a reel with its options and a story', () => {
    expect(check(platform, { collaborators: ['someone'], location_id: '123' }, ['caption #tag', [image('image/jpeg', 1080, 1350)]], ['comment', []]).problems).toEqual([]);
    const jpegs = Array.from({ length: 10 }, () => image('image/jpeg'));
    expect(check(platform, {}, ['carousel', jpegs]).problems).toEqual([]);
    expect(check(platform, { share_to_feed: true, thumb_offset: 1500 }, ['reel', [video(20)]]).problems).toEqual([]);
    expect(check(platform, { type: 'story' }, ['', [video(59)]]).problems).toEqual([]);
  });

  it('refuses bad settings', () => {
    expect(settingsPaths(check(platform, { collaborators: ['a', 'b', 'c', 'd'] }, ['x', [image()]]))).toEqual(['settings.collaborators']);
    expect(settingsPaths(check(platform, { thumb_offset: -1 }, ['x', [video()]]))).toEqual(['settings.thumb_offset']);
  });

  it('needs 1 to 10 media', () => {
    expect(problemsOf(check(platform, {}, ['text only', []]))).toEqual(['part 1 has 0 media; Instagram needs 1 to 10 images or videos']);
    expect(problemsOf(check(platform, {}, ['many', Array.from({ length: 11 }, () => image())]))[0]).toMatch(/^part 1 has 11 media/);
  });

  it('checks feed aspect ratios, video lengths and story rules', () => {
    expect(problemsOf(check(platform, {}, ['tall', [image('image/jpeg', 1000, 2000)]]))[0]).toMatch(/between 4:5 and 1.91:1/);
    expect(problemsOf(check(platform, {}, ['long', [video(901)]]))[0]).toMatch(/3 seconds to 15 minutes/);
    expect(problemsOf(check(platform, { type: 'story' }, ['', [image(), image()]]))[0]).toMatch(/story takes exactly 1/);
    expect(problemsOf(check(platform, { type: 'story' }, ['', [video(61)]]))[0]).toMatch(/at most 60 seconds/);
    expect(problemsOf(check(platform, { type: 'story', location_id: '1' }, ['', [image()]]))[0]).toMatch(/only to Instagram feed posts/);
  });

  it('keeps reel options to a single video, comments to text, and caps hashtags and mentions', () => {
    expect(problemsOf(check(platform, { share_to_feed: true }, ['x', [image()]]))[0]).toMatch(/single video/);
    expect(problemsOf(check(platform, {}, ['x', [image()]], ['c', [image()]]))[0]).toMatch(/^part 2 has media; Instagram comments are text only/);
    const tags = Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' ');
    expect(problemsOf(check(platform, {}, [tags, [image()]]))[0]).toMatch(/31 hashtags/);
    const names = Array.from({ length: 21 }, (_, i) => `@u${i}`).join(' ');
    expect(problemsOf(check(platform, {}, [names, [image()]]))[0]).toMatch(/mentions 21 accounts/);
    expect(check(platform, {}, ['mail me at a@b.com', [image('image/jpeg')]]).problems).toEqual([]);
  });

  it('limits the caption to 2200 characters', () => {
    expect(check(platform, {}, ['a'.repeat(2201), [image()]]).problems[0]?.path).toBe('value.0.content');
  });
});

describe('threads', () => {
  it('accepts a thread with a carousel and settings', () => {
    const result = check(threads, { reply_control: 'mentioned_only', topic_tag: 'cats' }, ['post', Array.from({ length: 20 }, () => image())], ['reply', [video()]]);
    expect(result.problems).toEqual([]);
    expect(check(threads, { link_attachment: 'https://example.com' }, ['text only', []]).problems).toEqual([]);
  });

  it('refuses bad settings', () => {
    expect(settingsPaths(check(threads, { reply_control: 'friends' }, ['post', []]))).toEqual(['settings.reply_control']);
    expect(settingsPaths(check(threads, { topic_tag: 'a.b' }, ['post', []]))).toEqual(['settings.topic_tag']);
  });

  it('takes at most 20 media per part and a link attachment only without media', () => {
    expect(problemsOf(check(threads, {}, ['a', []], ['b', Array.from({ length: 21 }, () => image())]))).toEqual(['part 2 has 21 media; Threads takes at most 20 per post']);
    expect(problemsOf(check(threads, { link_attachment: 'https://example.com' }, ['a', [image()]]))[0]).toMatch(/link attachment/);
  });

  it('limits each part to 500 characters', () => {
    expect(check(threads, {}, ['a'.repeat(500), []]).problems).toEqual([]);
    expect(check(threads, {}, ['a', []], ['a'.repeat(501), []]).problems[0]?.path).toBe('value.1.content');
  });
});

describe('youtube', () => {
  const settings = { title: 'My video', privacyStatus: 'unlisted', tags: ['one', 'two'] };

  it('accepts one MP4 video with a title', () => {
    const result = check(youtube, settings, ['description', [video(600)]]);
    expect(result.problems).toEqual([]);
    expect(result.settings).toEqual(settings);
  });

  it('requires a title of 2 to 100 characters and a known visibility', () => {
    expect(settingsPaths(check(youtube, {}, ['d', [video()]]))).toEqual(['settings.title']);
    expect(settingsPaths(check(youtube, { title: 'a' }, ['d', [video()]]))).toEqual(['settings.title']);
    expect(settingsPaths(check(youtube, { title: 'a'.repeat(101) }, ['d', [video()]]))).toEqual(['settings.title']);
    expect(settingsPaths(check(youtube, { title: 'a <b>' }, ['d', [video()]]))).toEqual(['settings.title']);
    expect(settingsPaths(check(youtube, { title: 'ok', privacyStatus: 'friends' }, ['d', [video()]]))).toEqual(['settings.privacyStatus']);
    expect(settingsPaths(check(youtube, { title: 'ok', tags: ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(100), 'd'.repeat(100), 'e'.repeat(100)] }, ['d', [video()]]))).toEqual(['settings.tags']);
  });

  it('takes exactly 1 MP4 video', () => {
    expect(problemsOf(check(youtube, settings, ['d', []]))).toEqual(['part 1 has 0 images and 0 videos; YouTube takes exactly 1 video']);
    expect(problemsOf(check(youtube, settings, ['d', [video(), video()]]))[0]).toMatch(/exactly 1 video/);
    expect(problemsOf(check(youtube, settings, ['d', [image()]]))[0]).toMatch(/exactly 1 video/);
    expect(problemsOf(check(youtube, settings, ['d', [video(30, 'video/quicktime')]]))[0]).toMatch(/MP4/);
  });

  it('counts the description in UTF-8 bytes and has no comments', () => {
    expect(check(youtube, settings, ['a'.repeat(5000), [video()]]).problems).toEqual([]);
    expect(check(youtube, settings, ['é'.repeat(2501), [video()]]).problems[0]?.path).toBe('value.0.content');
    expect(check(youtube, settings, ['d', [video()]], ['comment', []]).problems[0]?.path).toBe('value.1');
  });
});

describe('tiktok', () => {
  it('accepts a video and a photo post with their options', () => {
    expect(check(tiktok, { privacy_level: 'PUBLIC_TO_EVERYONE', disable_duet: true, disable_stitch: false, disable_comment: true }, ['video', [video(60)]]).problems).toEqual([]);
    expect(check(tiktok, { privacy_level: 'SELF_ONLY', title: 'Photos', auto_add_music: true }, ['photos', [image('image/jpeg'), image('image/webp')]]).problems).toEqual([]);
  });

  it('requires a known privacy level', () => {
    expect(settingsPaths(check(tiktok, {}, ['v', [video()]]))).toEqual(['settings.privacy_level']);
    expect(settingsPaths(check(tiktok, { privacy_level: 'FRIENDS' }, ['v', [video()]]))).toEqual(['settings.privacy_level']);
    expect(settingsPaths(check(tiktok, { privacy_level: 'SELF_ONLY', title: 'a'.repeat(91) }, ['p', [image('image/jpeg')]]))).toEqual(['settings.title']);
  });

  it('takes 1 video or images only, with media required', () => {
    const privacy = { privacy_level: 'SELF_ONLY' };
    expect(problemsOf(check(tiktok, privacy, ['text', []]))[0]).toMatch(/no media/);
    expect(problemsOf(check(tiktok, privacy, ['v', [video(), video()]]))[0]).toMatch(/1 video, or images only/);
    expect(problemsOf(check(tiktok, privacy, ['v', [video(), image('image/jpeg')]]))[0]).toMatch(/1 video, or images only/);
    expect(problemsOf(check(tiktok, privacy, ['p', Array.from({ length: 36 }, () => image('image/jpeg'))]))[0]).toMatch(/at most 35 photos/);
    expect(problemsOf(check(tiktok, privacy, ['p', [image('image/png')]]))[0]).toMatch(/JPEG or WebP/);
    expect(problemsOf(check(tiktok, privacy, ['v', [video(601)]]))[0]).toMatch(/at most 10 minutes/);
  });

  it('keeps video switches off photo posts and photo options off videos', () => {
    expect(problemsOf(check(tiktok, { privacy_level: 'SELF_ONLY', disable_duet: true }, ['p', [image('image/jpeg')]]))).toEqual(['disable_duet applies only to a TikTok video, not to photos']);
    expect(problemsOf(check(tiktok, { privacy_level: 'SELF_ONLY', title: 'x' }, ['v', [video()]]))[0]).toMatch(/only to TikTok photo posts/);
  });

  it('limits a video caption to 2,200 UTF-16 units, a photo description to 4,000, and refuses more parts', () => {
    const privacy = { privacy_level: 'SELF_ONLY' };
    expect(check(tiktok, privacy, ['a'.repeat(2200), [video()]]).problems).toEqual([]);
    expect(check(tiktok, privacy, ['a'.repeat(2201), [video()]]).problems).toEqual([
      { path: 'value.0.content', message: 'has 2201 UTF-16 code units (emoji count 2); TikTok allows 2200' },
    ]);
    // An emoji is two UTF-16 units: 1,101 of them are over a caption's 2,200.
    expect(check(tiktok, privacy, ['🎬'.repeat(1101), [video()]]).problems[0]?.path).toBe('value.0.content');
    expect(check(tiktok, privacy, ['a'.repeat(4000), [image('image/jpeg')]]).problems).toEqual([]);
    expect(check(tiktok, privacy, ['a'.repeat(4001), [image('image/jpeg')]]).problems[0]?.message)
      .toBe('has 4001 UTF-16 code units (emoji count 2); TikTok allows 4000');
    expect(check(tiktok, privacy, ['a', [video()]], ['b', []]).problems[0]?.path).toBe('value.1');
  });
});
