import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { mastodon } from './definition.ts';
import { mastodonTextLength } from '../kit/mastodon-text-length.ts';
import type { MediaFacts, PostPartFacts } from '../kit/platform-definition.ts';
import { validatePlatformPost } from '../validate-post.ts';

const image = (mimeType = 'image/png'): MediaFacts => (
  { kind: 'image', mimeType, width: 64, height: 48, durationSeconds: null, sizeBytes: 100_000 }
);
const video = (mimeType = 'video/mp4'): MediaFacts => (
  { kind: 'video', mimeType, width: 320, height: 240, durationSeconds: 2, sizeBytes: 100_000 }
);
const part = (text: string, media: MediaFacts[] = []): PostPartFacts => ({ text, media });
const problems = (settings: Record<string, unknown>, parts: PostPartFacts[]) => (
  validatePlatformPost(mastodon, { settings, parts }).problems
);
/** The one problem of a post, about its media or its parts together (path `value`). */
const postProblem = (message: string) => [{ path: 'value', message }];

const family = '👨‍👩‍👧';
const longUrl = `https://example.com/${'x'.repeat(300)}`;
const remoteMention = `@alice@${'long'.repeat(20)}.example`;

describe('Mastodon media sizes', () => {
  it('refuses images over 16 MB and videos over 99 MB, as an instance does by default', () => {
    const big = (facts: MediaFacts, sizeBytes: number): MediaFacts => ({ ...facts, sizeBytes });
    expect(problems({}, [part('a', [big(image(), 16 * 1024 * 1024)]), part('b', [big(video(), 99 * 1024 * 1024)])]))
      .toEqual([]);
    expect(problems({}, [part('a', [big(image(), 17 * 1024 * 1024)]), part('b', [big(video(), 100 * 1024 * 1024)])]))
      .toEqual(postProblem('part 1, media 1: the image is 17 MB; Mastodon takes images up to 16 MB').concat(
        postProblem('part 2, media 1: the video is 100 MB; Mastodon takes videos up to 99 MB'),
      ));
  });
});

describe('Mastodon text length', () => {
  it.each([
    ['plain text', 'hello', 5],
    ['an emoji sequence as one character', family.repeat(3), 3],
    ['a URL as 23', `see ${longUrl}`, 4 + 23],
    ['two URLs as 23 each', `${longUrl} ${longUrl}`, 23 + 1 + 23],
    ['a URL without a scheme in full', 'example.com/abc', 15],
    ['a remote mention as its user name', `${remoteMention} hi`, 6 + 3],
    ['a local mention in full', '@bob hi', 7],
    ['an e-mail address is no mention', 'me@bob.example', 14],
    ['an @ in a URL is part of the URL', 'https://example.com/@alice@other.example', 23],
  ])('counts %s', (_what, text, expected) => {
    expect(mastodonTextLength(text)).toBe(expected);
  });
});

describe('Mastodon post rules', () => {
  it('lets 500 grapheme clusters through and refuses 501', () => {
    expect(problems({}, [part(family.repeat(500))])).toEqual([]);
    expect(problems({}, [part(family.repeat(501))])).toEqual([
      { path: 'value.0.content', message: 'has 501 characters; Mastodon allows 500' },
    ]);
  });

  it('counts a URL as 23 characters', () => {
    expect(problems({}, [part(`${'a'.repeat(476)} ${longUrl}`)])).toEqual([]);
    expect(problems({}, [part(`${'a'.repeat(477)} ${longUrl}`)])).toHaveLength(1);
  });

  it('counts the content warning with the text of every part', () => {
    const settings = { spoiler_text: 'w'.repeat(300) };
    expect(problems(settings, [part('a'.repeat(200)), part('b'.repeat(200))])).toEqual([]);
    expect(problems(settings, [part('a'.repeat(200)), part('b'.repeat(201))])).toEqual(postProblem(
      'part 2 has 501 characters with its content warning (spoiler_text); Mastodon allows 500 for both together',
    ));
  });

  it('refuses a video with images, two videos, more than 4 images, and types Mastodon does not take', () => {
    expect(problems({}, [part('x', [image(), video()])]))
      .toEqual(postProblem('part 1 mixes images and a video; Mastodon takes either up to 4 images or 1 video'));
    expect(problems({}, [part('x', [video(), video()])]))
      .toEqual(postProblem('part 1 has 2 videos; Mastodon takes 1 video per status'));
    expect(problems({}, [part('x', Array.from({ length: 5 }, () => image()))]))
      .toEqual(postProblem('part 1 has 5 media; Mastodon takes at most 4'));
    expect(problems({}, [part('x', [image('image/bmp'), image('image/tiff')])]))
      .toEqual(postProblem('part 1 has media Mastodon does not take (image/bmp, image/tiff)'));
    const accepted = [image('image/jpeg'), image('image/gif'), image('image/webp'), image('image/avif')];
    expect(problems({}, [part('x', accepted), part('y', [video()])])).toEqual([]);
  });
});

describe('the registry and the Mastodon simulator agree on the text', () => {
  const simulator = new MastodonSimulator();
  let token = '';
  beforeAll(async () => {
    await simulator.start();
    token = simulator.addAccount('agree');
  });
  afterAll(async () => { await simulator.stop(); });

  it.each([
    ['500 emoji sequences', '', family.repeat(500)],
    ['501 emoji sequences', '', family.repeat(501)],
    ['a long URL that counts 23', '', `${'a'.repeat(476)} ${longUrl}`],
    ['one character more', '', `${'a'.repeat(477)} ${longUrl}`],
    ['a remote mention at the limit', '', `${remoteMention} ${'a'.repeat(493)}`],
    ['a remote mention over the limit', '', `${remoteMention} ${'a'.repeat(494)}`],
    ['a warning and text at 500', 'w'.repeat(300), 'a'.repeat(200)],
    ['a warning and text at 501', 'w'.repeat(300), 'a'.repeat(201)],
  ])('%s', async (_what, spoiler, text) => {
    const settings = spoiler === '' ? {} : { spoiler_text: spoiler };
    const registryAccepts = problems(settings, [part(text)]).length === 0;
    const response = await fetch(`${simulator.origin}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: text, ...settings }),
    });
    const verdict = `registry ${registryAccepts ? 'accepts' : 'refuses'}, the simulator answered ${response.status}`;
    expect(response.status === 200, verdict).toBe(registryAccepts);
  });
});
