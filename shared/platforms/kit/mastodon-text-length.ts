import { graphemeCount, maxUnitsPerGrapheme } from './grapheme-count.ts';
import { findLinks } from './link-finder.ts';
import type { BoundedCount } from './bounded-count.ts';

/** Mastodon counts every URL with a scheme as this many characters (`characters_reserved_per_url`). */
export const mastodonCharactersPerUrl = 23;
const urlStandIn = 'x'.repeat(mastodonCharactersPerUrl);

const word = String.raw`\p{L}\p{M}\p{N}\p{Pc}`;
/** A mention as Mastodon finds it (Account::MENTION_RE): `@user` or `@user@domain`, not inside a word. */
const mention = new RegExp(
  String.raw`(?<![=/${word}])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@[${word}.-]+[${word}])?`,
  'giu',
);

interface Span {
  start: number;
  end: number;
  countsAs: string;
}

/** The URLs with a scheme (the first `stopAfter` of them at most), in the order they appear. */
function urlSpans(text: string, stopAfter?: number): Span[] {
  // Text without a colon has no URL with a scheme: most posts skip the search.
  if (!text.includes(':')) return [];
  return findLinks(text, { withoutScheme: false, stopAfter })
    .map((url) => ({ start: url.start, end: url.end, countsAs: urlStandIn }));
}

/** The URLs, then the mentions outside them, in the order they appear. */
function countedSpans(text: string, urls: Span[]): Span[] {
  const spans: Span[] = [];
  let next = 0;
  // Without an @ there is no mention: most posts skip the search.
  for (const found of text.includes('@') ? text.matchAll(mention) : []) {
    const span = { start: found.index, end: found.index + found[0].length, countsAs: `@${found[1] ?? ''}` };
    // Both lists run left to right: URLs ending before this mention can no longer overlap a later one.
    for (let url = urls[next]; url !== undefined && url.end <= span.start; url = urls[next]) {
      spans.push(url);
      next += 1;
    }
    // Where a URL and a mention overlap (an @ in a URL path), the URL wins, as in Mastodon.
    const url = urls[next];
    if (url === undefined || span.end <= url.start) spans.push(span);
  }
  return spans.concat(urls.slice(next));
}

/** The text Mastodon measures: each URL as 23 characters, a remote mention as its user name. */
function countableText(text: string, urls: Span[]): string {
  let countable = '';
  let from = 0;
  for (const span of countedSpans(text, urls)) {
    countable += text.slice(from, span.start) + span.countsAs;
    from = span.end;
  }
  return countable + text.slice(from);
}

/**
 * The length of a status as Mastodon's StatusLengthValidator measures it: grapheme clusters,
 * each http(s) URL as 23 characters whatever its length, a remote mention `@user@domain` as
 * `@user`. Mastodon adds the content warning (`spoiler_text`) to the same count.
 */
export function mastodonTextLength(text: string): number {
  return graphemeCount(countableText(text, urlSpans(text)));
}

/**
 * mastodonTextLength, unless the status certainly counts more than `limit`: it holds more URLs
 * than fit at 23 characters each (the search stops there), or the measured text is too long to
 * hold at most `limit` grapheme clusters (see maxUnitsPerGrapheme), which then is not segmented.
 */
export function boundedMastodonTextLength(text: string, limit: number): BoundedCount {
  const fitting = Math.floor(limit / mastodonCharactersPerUrl);
  const urls = urlSpans(text, fitting + 1);
  if (urls.length > fitting) {
    const reason = `it holds more than ${fitting} links, ${mastodonCharactersPerUrl} characters each`;
    return { overBecause: reason };
  }
  const countable = countableText(text, urls);
  if (countable.length > limit * maxUnitsPerGrapheme) {
    const reason = `with its links as ${mastodonCharactersPerUrl} characters it still takes over `
      + `${limit * maxUnitsPerGrapheme} UTF-16 code units, more than ${maxUnitsPerGrapheme} per character`;
    return { overBecause: reason };
  }
  return { length: graphemeCount(countable) };
}
