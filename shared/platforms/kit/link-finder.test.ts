import twitterText from 'twitter-text';
import { describe, expect, it } from 'vitest';
import { findLinks, type FoundLink } from './link-finder.ts';
import { xWeightedLength } from './x-weighted-length.ts';

/** What twitter-text's own scan reports, in findLinks' shape. */
function twitterTextLinks(text: string, withoutScheme: boolean): FoundLink[] {
  return twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: withoutScheme })
    .map((url) => ({ start: url.indices[0], end: url.indices[1], textLength: url.url.length }));
}

/** mulberry32: a seeded generator, so a failing text can be made again from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Texts made of pieces twitter-text's pattern treats specially, each joined to the next at random. */
function randomTexts(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const pick = (pieces: readonly string[]): string => pieces[Math.floor(random() * pieces.length)] ?? '';
  const some = (make: () => string, most: number): string =>
    Array.from({ length: Math.floor(random() * (most + 1)) }, make).join('');
  const labelUnits = ['a', 'Z', '0', '-', '_', 'é', '中', 'я', '😀', '\u0301', '。', 'x'];
  const label = (): string => some(() => pick(labelUnits), 6) || 'a';
  const tlds = ['com', 'COM', 'co', 'ru', 'рф', '中文网', 'onion', 'xn--p1ai', 'xn--', 'vermögensberatung', 'c0m', 'com-'];
  const pathUnits = ['a', '/', '.', '-', '_', '=', '+', '#', '!', '*', ';', ':', ',', '~', '@', '|', '&', 'é', 'я', '–',
    '(', ')', '(a)', '(a(b)c)', '((', '中', '?', ' '];
  const queryUnits = ['a', '1', '!', '?', "'", '@', '(', ')', ';', '&', '=', '+', '/', '%', '#', '-', '_', '.', ',',
    'é'];
  const link = (): string => pick(['', '', 'http://', 'https://', 'HTTP://', 'http:/'])
    + some(() => `${label()}.`, 3) + label() + '.' + pick(tlds)
    + (random() < 0.2 ? `:${some(() => pick(['1', '8', 'a']), 4)}` : '')
    + (random() < 0.6 ? `/${some(() => pick(pathUnits), 10)}` : '')
    + (random() < 0.3 ? `?${some(() => pick(queryUnits), 8)}` : '');
  const fillers = [' ', '\n', '(', '"', '.', ',', '-', '_', '/', '@', '#', '$', 'a', '中', '😀', '\u202a', '\ufeff',
    't.co/', 'http://t.co/abc', 'x'.repeat(41), '。', 'a'.repeat(62), 'b'.repeat(64)];
  return Array.from({ length: count }, () => some(() => (random() < 0.5 ? link() : pick(fillers)), 6));
}

const normalTexts: [string, string][] = [
  ['prose with a link', 'Our launch post is up: https://example.com/blog/launch?utm_source=x#top. Enjoy!'],
  ['a link without a scheme', 'read example.org/docs and www.example.co.uk'],
  ['a link in parentheses', '(see https://en.wikipedia.org/wiki/Primer_(film))'],
  ['a t.co link', 'via http://t.co/abc123?amp=1 today'],
  ['an internationalized host name', 'https://例子.中国/路径 and münchen.de'],
  ['Japanese prose glued to a link', '詳しくはhttps://example.jp/記事をご覧ください。'],
  ['a port and a query', 'http://localhost.test:8080/path?q=1&r=2'],
  ['emoji and mentions', '🎉 @alice@example.social see https://example.com/🎉'],
  ['an e-mail address', 'write to me@example.com'],
  ['no link at all', 'Just words, dots... and colons: nothing more.'],
];

describe('findLinks', () => {
  it.each(normalTexts)('finds in %s the links twitter-text finds', (_what, text) => {
    for (const withoutScheme of [true, false]) {
      expect(findLinks(text, { withoutScheme })).toEqual(twitterTextLinks(text, withoutScheme));
    }
  });

  it('finds what twitter-text finds in 3,000 random texts made of link pieces', () => {
    for (const text of randomTexts(30, 3000)) {
      for (const withoutScheme of [true, false]) {
        expect(findLinks(text, { withoutScheme }), JSON.stringify(text)).toEqual(twitterTextLinks(text, withoutScheme));
      }
    }
  });

  it('stops after as many links as asked', () => {
    const text = 'https://a.com https://b.com https://c.com';
    expect(findLinks(text, { withoutScheme: false }).map((link) => link.start)).toEqual([0, 14, 28]);
    expect(findLinks(text, { withoutScheme: false, stopAfter: 2 }).map((link) => link.start)).toEqual([0, 14]);
  });
});

describe('xWeightedLength', () => {
  it('weighs normal and random texts as twitter-text\'s parseTweet does', () => {
    const texts = [...normalTexts.map(([, text]) => text), ...randomTexts(31, 1000)];
    for (const text of texts) {
      expect(xWeightedLength(text), JSON.stringify(text)).toBe(twitterText.parseTweet(text).weightedLength);
    }
  });
});
