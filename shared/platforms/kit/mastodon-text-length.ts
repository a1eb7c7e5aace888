import twitterText from 'twitter-text';
import { graphemeCount } from './grapheme-count.ts';

/** Mastodon counts every URL with a scheme as this many characters (`characters_reserved_per_url`). */
export const mastodonCharactersPerUrl = 23;

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

/**
 * The length of a status as Mastodon's StatusLengthValidator measures it: grapheme clusters,
 * each http(s) URL as 23 characters whatever its length, a remote mention `@user@domain` as
 * `@user`. Mastodon adds the content warning (`spoiler_text`) to the same count.
 */
export function mastodonTextLength(text: string): number {
  // Text without a colon has no URL with a scheme, and without an @ no mention: most posts skip
  // both searches, the URL one being the costlier.
  const urls = text.includes(':')
    ? twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false })
    : [];
  const spans: Span[] = urls
    .map((url) => ({ start: url.indices[0], end: url.indices[1], countsAs: 'x'.repeat(mastodonCharactersPerUrl) }));
  for (const found of text.includes('@') ? text.matchAll(mention) : []) {
    const span = { start: found.index, end: found.index + found[0].length, countsAs: `@${found[1] ?? ''}` };
    // Where a URL and a mention overlap (an @ in a URL path), the URL wins, as in Mastodon.
    if (!spans.some((url) => span.start < url.end && span.end > url.start)) spans.push(span);
  }
  spans.sort((a, b) => a.start - b.start);
  let countable = '';
  let from = 0;
  for (const span of spans) {
    countable += text.slice(from, span.start) + span.countsAs;
    from = span.end;
  }
  countable += text.slice(from);
  return graphemeCount(countable);
}
