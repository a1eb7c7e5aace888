import { describe, expect, it } from 'vitest';
import { shortLinkBase, shortenChannelPost, shortenRequest } from './shorten-links.ts';

describe('shortening the links of a post', () => {
  const base = shortLinkBase('https://sps.example/api');
  const codes = () => {
    let next = 0;
    return () => `code${String((next += 1))}`;
  };
  const post = (...contents: string[]) => ({
    integration: { id: 'c' }, value: contents.map((content) => ({ content, image: [] })),
  });

  it('points at the host root, outside /api', () => {
    expect(base).toBe('https://sps.example/l');
    expect(shortLinkBase('https://sps.example/')).toBe('https://sps.example/l');
  });

  it('replaces each address once, keeps closing punctuation, leaves short links and other text alone', () => {
    const shortened = shortenChannelPost(post(
      'See (https://a.example/x?y=1), http://b.example/ and https://a.example/x?y=1!',
      `Twice: https://a.example/x?y=1 and ${base}/kept; ftp://c.example/not`,
    ), base, codes());
    expect(shortened.input.value.map((part) => part.content)).toEqual([
      `See (${base}/code1), ${base}/code2 and ${base}/code1!`,
      `Twice: ${base}/code1 and ${base}/kept; ftp://c.example/not`,
    ]);
    expect(shortened.links).toEqual([
      { code: 'code1', part: 0, target: 'https://a.example/x?y=1' },
      { code: 'code2', part: 0, target: 'http://b.example/' },
    ]);
  });

  it('changes nothing without shortLink: true, and refuses to shorten with no public address', () => {
    const input = { shortLink: false, posts: [post('https://a.example')] };
    expect(shortenRequest(input, undefined)).toEqual({ input, links: [] });
    expect(() => shortenRequest({ ...input, shortLink: true }, undefined)).toThrow(/BACKEND_URL/);
  });
});
