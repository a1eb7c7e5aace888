import { describe, expect, it } from 'vitest';
import { findPlatform } from '../platforms.ts';
import { validatePlatformPost } from '../validate-post.ts';
import type { TextCounting } from './platform-definition.ts';
import { maxReadUnits, maxUnitsPerCounted, measureTextLength, textLength } from './text-length.ts';

/** The longest the event loop may be held by one count. */
const maxBlockedMs = 100;
const megabyte = 1024 * 1024;

/**
 * How long `work` holds the event loop: it is synchronous, so its duration is the block. The
 * shortest of three runs, so that time another process took from this one (tests run in
 * parallel) is not counted; work that grows faster than the text takes seconds every time.
 */
function blockedMs(work: () => void): number {
  let shortest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    work();
    shortest = Math.min(shortest, performance.now() - started);
  }
  return shortest;
}

/** `unit` repeated between `prefix` and `suffix` to about `units` UTF-16 units in all. */
function filled(units: number, unit: string, prefix = '', suffix = ''): string {
  return prefix + unit.repeat(Math.max(1, Math.floor((units - prefix.length - suffix.length) / unit.length))) + suffix;
}

/** Texts built to be slow to count, by the size wanted. */
const adversarial: [string, (units: number) => string][] = [
  ['the URL-like text that froze the api', (units) => filled(units, 'a-', 'http: ', '.com')],
  ['a run of "a."', (units) => filled(units, 'a.')],
  ['a run of "a-"', (units) => filled(units, 'a-', '.')],
  ['a run of "a_" labels', (units) => filled(units, 'a_a.')],
  ['"@a@a@a…"', (units) => filled(units, '@a')],
  ['remote mentions', (units) => filled(units, '@a@b.', 'http://')],
  ['"#a#a…"', (units) => filled(units, '#a')],
  ['dots', (units) => filled(units, '.', ':')],
  ['emoji', (units) => filled(units, '😀', 'http://')],
  ['emoji sequences', (units) => filled(units, '👨‍👩‍👧', 'x.co ')],
  ['combining marks', (units) => filled(units, '\u0301', 'a')],
  ['combining marks and dots', (units) => filled(units, 'a\u0301.', 'http://')],
  ['CJK and dots', (units) => filled(units, '中.', 'http://')],
  ['a scheme before "a-a-…"', (units) => filled(units, 'a-', 'http://')],
  ['a path of parentheses', (units) => filled(units, '(a)', 'http://x.com/', '!')],
  ['labels before a CJK top-level domain', (units) => filled(units, 'a.', '', '中文.com')],
  ['links', (units) => filled(units, 'https://x.co ')],
];

/** Each counting with a platform's limit, and Mastodon with a limit its instance chose. */
const countings: [TextCounting, number][] = [
  ['x-weighted', 280],
  ['mastodon', 500],
  ['mastodon', 1_000_000_000],
  ['graphemes', 300],
  ['code-points', 500],
  ['code-points', 100_000_000],
  ['utf8-bytes', 320],
  ['utf16-units', 2200],
];

/** The longest text the counting reads in full for the limit (the most work), and a megabyte. */
const sizes = (counting: TextCounting, limit: number): number[] => [
  Math.min(limit * maxUnitsPerCounted[counting], maxReadUnits, megabyte),
  megabyte,
];

describe('measureTextLength', () => {
  const table = adversarial.flatMap(([what, make]) => countings.map(([counting, limit]) => (
    [what, counting, limit, make] as const
  )));

  it.each(table)('counts or refuses %s (%s, limit %d) within 100 ms', (_what, counting, limit, make) => {
    for (const units of sizes(counting, limit)) {
      const text = make(units);
      let measured = measureTextLength(text, counting, limit);
      expect(blockedMs(() => { measured = measureTextLength(text, counting, limit); }), `${String(units)} units`)
        .toBeLessThan(maxBlockedMs);
      if (measured.complete) expect(measured.length).toBe(textLength(text, counting));
      else expect(measured.problem).toMatch(/^(has more than \d+ .+: .+|is \d+ UTF-16 code units long, .+)$/);
    }
  });

  it.each([
    ['x-weighted', 'Launch day! 🎉 https://example.com/blog/launch?utm_source=x #news'],
    ['mastodon', '@alice@example.social see https://example.com/path and 日本語 👨‍👩‍👧'],
    ['graphemes', 'Bluesky post with emoji 👍🏽 and café'],
    ['code-points', 'Threads post with 😀 and text'],
    ['utf8-bytes', 'cast with é and 😀'],
  ] as const)('counts a normal %s text exactly as textLength does', (counting, text) => {
    expect(measureTextLength(text, counting, 500)).toEqual({ complete: true, length: textLength(text, counting) });
  });

  it('keeps exact counts a little over the limit, so the message gives them', () => {
    expect(measureTextLength('a'.repeat(501), 'code-points', 500)).toEqual({ complete: true, length: 501 });
    expect(measureTextLength('é'.repeat(200), 'utf8-bytes', 320)).toEqual({ complete: true, length: 400 });
    expect(measureTextLength('😀'.repeat(2000), 'utf16-units', 2200)).toEqual({ complete: true, length: 4000 });
  });
});

describe('validatePlatformPost with text far over the limit', () => {
  it('names the part and says why, for the 200 KB Mastodon status that froze the api', () => {
    const mastodon = findPlatform('mastodon');
    if (mastodon === undefined) throw new Error('no Mastodon platform');
    const text = `http: ${'a-'.repeat(100_000)}.com`;
    const parts = [{ text: 'hi', media: [] }, { text, media: [] }];
    const { problems } = validatePlatformPost(mastodon, { settings: {}, parts });
    expect(problems).toEqual([{
      path: 'value.1.content',
      message: 'has more than 500 characters: its 200010 UTF-16 code units are more than the 89500 SPS reads for '
        + 'this limit, as a link counts 23 and is at most 4096 long, so no character takes more than 179 units; '
        + 'Mastodon allows 500',
    }]);
  });
});
