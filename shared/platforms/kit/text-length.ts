import { graphemeCount, maxUnitsPerGrapheme } from './grapheme-count.ts';
import { boundedMastodonTextLength, mastodonTextLength } from './mastodon-text-length.ts';
import type { TextCounting } from './platform-definition.ts';
import { boundedXWeightedLength, xWeightedLength } from './x-weighted-length.ts';

/** Any half of a surrogate pair: without one, a text has as many code points as units. */
const surrogate = /[\ud800-\udfff]/;

/** Code points: UTF-16 units less the second unit of each surrogate pair. */
function codePointCount(text: string): number {
  // Most texts have no surrogate: a native search answers them several times faster than the loop.
  if (!surrogate.test(text)) return text.length;
  let pairs = 0;
  for (let index = 0; index < text.length - 1; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdbff) continue;
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      pairs += 1;
      index += 1;
    }
  }
  return text.length - pairs;
}

/**
 * Length of `text` as the platform counts it, in time linear in its length. Checking a post,
 * use measureTextLength: it bounds the work by the platform's limit.
 */
export function textLength(text: string, counting: TextCounting): number {
  switch (counting) {
    case 'code-points':
      return codePointCount(text);
    case 'graphemes':
      return graphemeCount(text);
    case 'x-weighted':
      return xWeightedLength(text);
    case 'utf8-bytes':
      return Buffer.byteLength(text, 'utf8');
    case 'utf16-units':
      return text.length;
    case 'mastodon':
      return mastodonTextLength(text);
  }
}

export const countingUnit: Record<TextCounting, string> = {
  'code-points': 'characters',
  graphemes: 'characters',
  'x-weighted': 'weighted characters (URLs count 23, CJK and emoji 2)',
  'utf8-bytes': 'bytes',
  'utf16-units': 'UTF-16 code units (emoji count 2)',
  mastodon: 'characters',
};

/**
 * The most UTF-16 units one counted character may take in a text SPS counts, by counting:
 * - a code point is 1 or 2 units, and a unit is 1 to 3 bytes: exact bounds;
 * - a grapheme cluster: see maxUnitsPerGrapheme;
 * - X and Mastodon count a link as 23 however long, and neither takes one over 4,096
 *   characters (twitter-text's MAX_URL_LENGTH, which Mastodon's Ruby twitter-text shares):
 *   ceil(4096 / 23) = 179 units per character at most, far above what text or emoji take.
 * Past `limit` times this, the work to count would grow with the text rather than the limit.
 */
export const maxUnitsPerCounted: Record<TextCounting, number> = {
  'code-points': 2,
  graphemes: maxUnitsPerGrapheme,
  'x-weighted': Math.ceil(4096 / 23),
  'utf8-bytes': 1,
  'utf16-units': 1,
  mastodon: Math.ceil(4096 / 23),
};

/** Why a text longer than its counting's bound cannot be within the limit, for the message. */
const boundReason: Record<TextCounting, string> = {
  'code-points': 'a character takes at most 2 units',
  graphemes: `no character takes more than ${maxUnitsPerGrapheme} units`,
  'x-weighted': 'a link counts 23 and is at most 4096 long, so no weighted character takes more than 179 units',
  'utf8-bytes': 'each unit takes at least one byte',
  'utf16-units': 'each unit counts one',
  mastodon: 'a link counts 23 and is at most 4096 long, so no character takes more than 179 units',
};

/**
 * Countings whose bound is exact and whose count costs little: a text a few times over the
 * bound is still counted, so the message gives the count. Their work is linear and cheap, so
 * a platform's own large limit (listmonk's 100 million characters) needs no other bound.
 */
const countedPastBound: Partial<Record<TextCounting, number>> = { 'code-points': 4, 'utf8-bytes': 4 };

/**
 * The most UTF-16 code units SPS reads for the countings that search links or segment text,
 * whatever the limit: a channel's limit may come from its Mastodon instance, which anyone can
 * run. Real posts stay far below (500 characters with a dozen links of 4,096 take 50,000), and
 * reading this much of crafted text takes a few tens of milliseconds.
 */
export const maxReadUnits = 50_000;

/** A text's length as its platform counts it, or the problem found without counting it all. */
export type MeasuredLength = { complete: true; length: number } | { complete: false; problem: string };

/**
 * The length of `text` as the platform counts it, when the text can be within `limit`, else a
 * refusal found without counting the whole text: the work is bounded by the limit, not by the
 * text. The API takes posts of many megabytes, and X's and Mastodon's link rules (twitter-text)
 * once took minutes over 200 KB of crafted text.
 */
export function measureTextLength(text: string, counting: TextCounting, limit: number): MeasuredLength {
  // Its length is the count itself.
  if (counting === 'utf16-units') return { complete: true, length: text.length };
  const over = (because: string): MeasuredLength => (
    { complete: false, problem: `has more than ${limit} ${countingUnit[counting]}: ${because}` }
  );
  const perCounted = maxUnitsPerCounted[counting];
  const pastBound = countedPastBound[counting];
  const readable = limit * perCounted;
  if (text.length > readable * (pastBound ?? 1)) {
    return over(`its ${text.length} UTF-16 code units are more than the ${readable} SPS reads for this limit, `
      + `as ${boundReason[counting]}`);
  }
  if (pastBound === undefined && text.length > maxReadUnits) {
    const problem = `is ${text.length} UTF-16 code units long, more than the ${maxReadUnits} SPS reads of one text`;
    return { complete: false, problem };
  }
  const bounded = counting === 'x-weighted'
    ? boundedXWeightedLength(text, limit)
    : counting === 'mastodon' ? boundedMastodonTextLength(text, limit) : { length: textLength(text, counting) };
  return 'length' in bounded ? { complete: true, length: bounded.length } : over(bounded.overBecause);
}
