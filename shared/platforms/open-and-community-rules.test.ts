import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bluesky } from './bluesky/definition.ts';
import { discord } from './discord/definition.ts';
import { lemmy } from './lemmy/definition.ts';
import { nostr } from './nostr/definition.ts';
import type { MediaFacts, PlatformDefinition, PostPartFacts } from './kit/platform-definition.ts';
import { reddit } from './reddit/definition.ts';
import { slack } from './slack/definition.ts';
import { telegram } from './telegram/definition.ts';
import { validatePlatformPost } from './validate-post.ts';
import { vk } from './vk/definition.ts';
import { warpcast } from './warpcast/definition.ts';

const image = (mimeType = 'image/png', width = 1000, height = 1000): MediaFacts => (
  { kind: 'image', mimeType, width, height, durationSeconds: null, sizeBytes: 100_000 }
);
const video = (mimeType = 'video/mp4'): MediaFacts => (
  { kind: 'video', mimeType, width: 1280, height: 720, durationSeconds: 30, sizeBytes: 1_000_000 }
);
const images = (count: number): MediaFacts[] => Array.from({ length: count }, () => image());
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });

function check(platform: PlatformDefinition, settings: Record<string, unknown>, parts: PostPartFacts[]) {
  return validatePlatformPost(platform, { settings, parts }).problems;
}

/** Problems of a post, as "path: message" lines so failures read well. */
function problemsOf(platform: PlatformDefinition, settings: Record<string, unknown>, parts: PostPartFacts[]): string[] {
  return check(platform, settings, parts).map((problem) => `${problem.path}: ${problem.message}`);
}

function expectSettingsProblem(platform: PlatformDefinition, settings: Record<string, unknown>, field: string): void {
  const problems = check(platform, settings, [part('hello')]);
  expect(problems.map((problem) => problem.path)).toContain(`settings.${field}`);
}

function expectMessage(platform: PlatformDefinition, settings: Record<string, unknown>, parts: PostPartFacts[], pattern: RegExp): void {
  const problems = check(platform, settings, parts);
  expect(problems.some((problem) => pattern.test(problem.message)), JSON.stringify(problems)).toBe(true);
}

function expectTooLong(platform: PlatformDefinition, settings: Record<string, unknown>, text: string): void {
  const problems = check(platform, settings, [part(text)]);
  expect(problems).toContainEqual({ path: 'value.0.content', message: expect.stringContaining(`${platform.displayName} allows ${platform.textLimit}`) as unknown });
}

const all = [bluesky, warpcast, nostr, vk, reddit, lemmy, discord, slack, telegram];

describe('open and community platforms', () => {
  it('declare the contract identifiers, groups, limits and reply modes', () => {
    expect(all.map((p) => [p.identifier, p.group, p.textLimit, p.replies])).toEqual([
      ['bluesky', 'social', 300, 'thread'],
      ['warpcast', 'social', 320, 'thread'],
      ['nostr', 'social', 100000, 'thread'],
      ['vk', 'social', 2048, 'thread'],
      ['reddit', 'community', 40000, 'thread'],
      ['lemmy', 'community', 50000, 'comment'],
      ['discord', 'community', 1980, 'comment'],
      ['slack', 'community', 40000, 'comment'],
      ['telegram', 'community', 4096, 'comment'],
    ]);
  });

  it.each(all.filter((p) => p.settings !== null).map((p) => [p.displayName, p] as const))('%s settings convert to JSON Schema with descriptions', (_, platform) => {
    const settings = platform.settings;
    if (settings === null) throw new Error('settings expected');
    const schema = z.toJSONSchema(settings) as { properties: Record<string, { description?: string }> };
    for (const [key, property] of Object.entries(schema.properties)) expect(property.description, key).toBeTruthy();
  });

  it('every tool has a camelCase method name and a description', () => {
    for (const tool of all.flatMap((p) => p.tools)) {
      expect(tool.methodName).toMatch(/^[a-z][A-Za-z]*$/);
      expect(tool.description.length).toBeGreaterThan(10);
    }
  });
});

describe('bluesky', () => {
  it('accepts a thread with 4 images and then 1 video', () => {
    expect(problemsOf(bluesky, { langs: ['en', 'pt-BR'], tags: ['sps'] }, [part('first', images(4)), part('second', [video()])])).toEqual([]);
  });
  it('rejects bad settings', () => {
    expectSettingsProblem(bluesky, { langs: ['en', 'fr', 'de', 'es'] }, 'langs');
    expectSettingsProblem(bluesky, { langs: ['english!'] }, 'langs.0');
    expectSettingsProblem(bluesky, { tags: ['#sps'] }, 'tags.0');
  });
  it('takes at most 4 images or 1 video', () => {
    expectMessage(bluesky, {}, [part('x', images(5))], /part 1 has 5 images; Bluesky takes at most 4 images or 1 video/);
    expectMessage(bluesky, {}, [part('x'), part('y', [video(), video()])], /part 2 has 2 videos/);
    expectMessage(bluesky, {}, [part('x', [image(), video()])], /mixes images and a video/);
  });
  const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
  it('counts graphemes: an emoji family (7 code points, 25 bytes) is one character', () => {
    const text = family.repeat(100) + 'a'.repeat(200);
    expect(problemsOf(bluesky, {}, [part(text)])).toEqual([]);
    expectTooLong(bluesky, {}, text + 'a');
    expectTooLong(bluesky, {}, 'a'.repeat(301));
  });
  it('also caps text at 3000 bytes', () => {
    expect(problemsOf(bluesky, {}, [part(family.repeat(120))])).toEqual([]);
    expectMessage(bluesky, {}, [part(family.repeat(121))], /part 1 has 3025 bytes of text; Bluesky takes at most 3000/);
  });
});

describe('warpcast', () => {
  it('accepts a thread in a channel', () => {
    expect(problemsOf(warpcast, { channel_id: 'neynar' }, [part('gm'), part('reply')])).toEqual([]);
  });
  it('rejects a bad channel id', () => {
    expectSettingsProblem(warpcast, { channel_id: 'Not A Channel' }, 'channel_id');
  });
  it('takes up to 2 media per cast, as its 2 embeds', () => {
    expect(validatePlatformPost(warpcast, { settings: {}, parts: [part('x', [image(), video()])] }).problems)
      .toEqual([]);
    expectMessage(warpcast, {}, [part('x', images(3))], /part 1 has 3 media; a cast carries at most 2 embeds/);
  });
  it('counts UTF-8 bytes up to 320, the limit of every account', () => {
    expect(problemsOf(warpcast, {}, [part('é'.repeat(160))])).toEqual([]);
    expectTooLong(warpcast, {}, 'é'.repeat(161));
  });
  it('takes at most 10 mentions per cast', () => {
    const names = (count: number) => Array.from({ length: count }, (_, index) => `@user${String(index)}`).join(' ');
    expect(problemsOf(warpcast, {}, [part(`gm ${names(10)} and dwr.eth@example`)])).toEqual([]);
    expectMessage(warpcast, {}, [part(names(11))], /mentions 11 accounts; a cast mentions at most 10/);
  });
});

describe('nostr', () => {
  it('ignores settings (it has none) and takes media, which notes link by URL', () => {
    expect(nostr.settings).toBeNull();
    const result = validatePlatformPost(nostr, { settings: { anything: true }, parts: [part('note'), part('reply')] });
    expect(result).toEqual({ settings: {}, problems: [] });
    expect(problemsOf(nostr, {}, [part('note', [image(), video()])])).toEqual([]);
  });
  it('caps text at 100000 characters', () => {
    expectTooLong(nostr, {}, 'a'.repeat(100001));
  });
});

describe('vk', () => {
  const settings = { from_group: true, signed: true, copyright: 'https://example.com/source' };
  it('accepts a post with 10 media and a comment', () => {
    expect(problemsOf(vk, settings, [part('post', [...images(9), video()]), part('comment', [image('image/jpeg')])])).toEqual([]);
  });
  it('rejects bad settings', () => {
    expectSettingsProblem(vk, { copyright: 'not a url' }, 'copyright');
    expectSettingsProblem(vk, { from_group: 'yes' }, 'from_group');
  });
  it('enforces count, photo type and photo size', () => {
    expectMessage(vk, {}, [part('x', images(11))], /part 1 has 11 media; VK takes at most 10/);
    expectMessage(vk, {}, [part('x', [image('image/webp')])], /JPEG, PNG or GIF/);
    expectMessage(vk, {}, [part('x', [image('image/png', 8000, 7000)])], /width plus height/);
    expectMessage(vk, {}, [part('x', [image('image/png', 2100, 100)])], /1:20/);
  });
  it('caps text at 2048 characters', () => {
    expectTooLong(vk, {}, 'a'.repeat(2049));
  });
});

describe('reddit', () => {
  const self = { subreddit: 'typescript', title: 'Hello', type: 'self' };
  it('accepts each post type with the media it needs', () => {
    expect(problemsOf(reddit, { ...self, flair_id: 'abc', nsfw: false }, [part('body'), part('comment')])).toEqual([]);
    expect(problemsOf(reddit, { ...self, type: 'link', url: 'https://example.com' }, [part('')])).toEqual([]);
    expect(problemsOf(reddit, { ...self, type: 'image' }, [part('', [image()])])).toEqual([]);
    expect(problemsOf(reddit, { ...self, type: 'video' }, [part('', [video()])])).toEqual([]);
    expect(problemsOf(reddit, { ...self, type: 'gallery' }, [part('', images(20))])).toEqual([]);
  });
  it('requires subreddit, title and type', () => {
    expectSettingsProblem(reddit, { title: 'Hello', type: 'self' }, 'subreddit');
    expectSettingsProblem(reddit, { subreddit: 'typescript', type: 'self' }, 'title');
    expectSettingsProblem(reddit, { subreddit: 'typescript', title: 'Hello' }, 'type');
    expectSettingsProblem(reddit, { ...self, subreddit: 'r/typescript' }, 'subreddit');
    expectSettingsProblem(reddit, { ...self, title: 'x'.repeat(301) }, 'title');
    expectSettingsProblem(reddit, { ...self, type: 'poll' }, 'type');
  });
  it('enforces the rules of each post type', () => {
    expectMessage(reddit, { ...self, type: 'link' }, [part('')], /link post needs settings.url/);
    expectMessage(reddit, { ...self, url: 'https://example.com' }, [part('')], /only for Reddit link posts/);
    expectMessage(reddit, self, [part('x', [image()])], /self post takes none/);
    expectMessage(reddit, { ...self, type: 'image' }, [part('')], /image post takes exactly 1 image/);
    expectMessage(reddit, { ...self, type: 'image' }, [part('', images(2))], /image post takes exactly 1 image/);
    expectMessage(reddit, { ...self, type: 'videogif' }, [part('', [image()])], /videogif post takes exactly 1 video/);
    expectMessage(reddit, { ...self, type: 'gallery' }, [part('', images(21))], /gallery takes 1 to 20/);
    expectMessage(reddit, { ...self, type: 'gallery' }, [part('', [image(), video()])], /images only/);
    expectMessage(reddit, self, [part('x'), part('y', [image()])], /Reddit comments take none/);
  });
  it('caps the self text at 40000 characters and each comment at 10000', () => {
    expect(problemsOf(reddit, self, [part('a'.repeat(40000)), part('b'.repeat(10000))])).toEqual([]);
    expectTooLong(reddit, self, 'a'.repeat(40001));
    const long = [part('body'), part('b'.repeat(10001))];
    expectMessage(reddit, self, long, /part 2 has 10001 characters; a Reddit comment takes up to 10000/);
    expectMessage(reddit, self, [part('body'), part(' ')], /part 2 is empty/);
  });
  it('takes the image and video types and sizes the upload lease takes', () => {
    const bmp = [part('', [image('image/bmp')])];
    expectMessage(reddit, { ...self, type: 'image' }, bmp, /Reddit takes JPEG, PNG, GIF or WebP/);
    expectMessage(reddit, { ...self, type: 'video' }, [part('', [video('video/webm')])], /Reddit takes MP4 or MOV/);
    const big = { ...image(), sizeBytes: 20 * 1024 * 1024 + 1 };
    expectMessage(reddit, { ...self, type: 'image' }, [part('', [big])], /Reddit takes images up to 20 MB/);
  });
});

describe('lemmy', () => {
  const settings = { community_id: 12, name: 'A post title', url: 'https://example.com', nsfw: false };
  it('accepts a post whose first media is an image', () => {
    expect(problemsOf(lemmy, settings, [part('body', [image(), video()]), part('comment')])).toEqual([]);
  });
  it('requires a community and a one-line title of 3 to 200 characters', () => {
    expectSettingsProblem(lemmy, { name: 'A title' }, 'community_id');
    expectSettingsProblem(lemmy, { community_id: 12 }, 'name');
    expectSettingsProblem(lemmy, { ...settings, name: 'ab' }, 'name');
    expectSettingsProblem(lemmy, { ...settings, name: 'two\nlines' }, 'name');
  });
  it('needs an image as the first media', () => {
    expectMessage(lemmy, settings, [part('x', [video(), image()])], /part 1 starts with a video before its images; Lemmy needs the first media to be an image/);
  });
  it('caps a post\'s body at 50000 characters and a comment at 10000', () => {
    expectTooLong(lemmy, settings, 'a'.repeat(50001));
    expect(problemsOf(lemmy, settings, [part('a'.repeat(50000)), part('b'.repeat(10000))])).toEqual([]);
    const longComment = [part('a'), part('b'.repeat(10001))];
    expectMessage(lemmy, settings, longComment, /part 2 has 10001 characters; Lemmy comments take up to 10000/);
  });
});

describe('discord', () => {
  const settings = { channel: '123456789012345678', thread_name: 'Launch' };
  it('accepts a message with 10 files and a comment', () => {
    expect(problemsOf(discord, settings, [part('hi', [...images(9), video()]), part('more')])).toEqual([]);
  });
  it('requires a channel id', () => {
    expectSettingsProblem(discord, {}, 'channel');
    expectSettingsProblem(discord, { channel: 'general' }, 'channel');
    expectSettingsProblem(discord, { ...settings, thread_name: 'x'.repeat(101) }, 'thread_name');
  });
  it('takes at most 10 files per message', () => {
    expectMessage(discord, settings, [part('x'), part('y', images(11))], /part 2 has 11 media; Discord takes at most 10/);
  });
  it('caps text at 1980 characters', () => {
    expectTooLong(discord, settings, 'a'.repeat(1981));
  });
});

describe('slack', () => {
  const settings = { channel: 'C0123456789', username: 'SPS', icon_emoji: ':rocket:', unfurl_links: false };
  it('accepts a message with media and a thread reply', () => {
    expect(problemsOf(slack, settings, [part('hi', [image(), video()]), part('reply')])).toEqual([]);
  });
  it('requires a channel id and one icon at most', () => {
    expectSettingsProblem(slack, {}, 'channel');
    expectSettingsProblem(slack, { channel: '#general' }, 'channel');
    expectSettingsProblem(slack, { ...settings, icon_url: 'https://example.com/icon.png' }, 'icon_emoji');
  });
  it('caps text at 40000 characters', () => {
    expectTooLong(slack, settings, 'a'.repeat(40001));
  });
});

describe('telegram', () => {
  it('accepts an album of 10 and a reply', () => {
    expect(problemsOf(telegram, { disable_notification: true, has_spoiler: true }, [part('caption', [...images(9), video()]), part('reply')])).toEqual([]);
  });
  it('rejects bad settings', () => {
    expectSettingsProblem(telegram, { message_thread_id: -1 }, 'message_thread_id');
    expectSettingsProblem(telegram, { protect_content: 'yes' }, 'protect_content');
  });
  it('sends media in groups of up to 10, with a caption of up to 1024', () => {
    expectMessage(telegram, {}, [part('x', images(11))], /part 1 has 11 media; Telegram sends at most 10 in one album/);
    expectMessage(telegram, {}, [part('a'.repeat(1025), [image()])], /captions take at most 1024/);
    expect(problemsOf(telegram, {}, [part('a'.repeat(4096))])).toEqual([]);
  });
  it('refuses media settings without media', () => {
    expectMessage(telegram, { show_caption_above_media: true }, [part('x')], /settings.show_caption_above_media needs media/);
  });
  it('caps text at 4096 characters', () => {
    expectTooLong(telegram, {}, 'a'.repeat(4097));
  });
});
