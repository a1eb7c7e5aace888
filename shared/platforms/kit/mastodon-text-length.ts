import twitterText from 'twitter-text';

/** Mastodon counts every URL with a scheme as this many characters (`characters_reserved_per_url`). */
export const mastodonCharactersPerUrl = 23;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
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
  const spans: Span[] = twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false })
    .map((url) => ({ start: url.indices[0], end: url.indices[1], countsAs: 'x'.repeat(mastodonCharactersPerUrl) }));
  for (const found of text.matchAll(mention)) {
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
  let count = 0;
  for (const _ of graphemes.segment(countable)) count += 1;
  return count;
}
