import twitterText from 'twitter-text';
import { findLinks } from './link-finder.ts';
import type { BoundedCount } from './bounded-count.ts';

/** X counts every link as this many weighted characters (transformedURLLength). */
export const xCharactersPerLink = 23;

/**
 * More UTF-16 units than one weighted character of text outside links can take: an emoji
 * sequence weighs 2, and twemoji-parser's longest (a subdivision flag, such as Scotland's) is
 * 14 units; any other code point weighs at least 1 for at most 2 units (after NFC, as counted).
 */
export const xUnitsPerWeightedCharacter = 10;

/** The text between links, as parseTweet weighs it. */
interface LinkFreeText {
  pieces: string[];
  links: number;
  units: number;
}

/**
 * Splits a normalized text as parseTweet walks it: at a link's start it counts 23 and skips as
 * many units as twitter-text's text of the link has, so a link starting inside the skipped part
 * is passed over.
 */
function linkFreeText(normalized: string, stopAfter?: number): LinkFreeText {
  const pieces: string[] = [];
  let links = 0;
  let from = 0;
  for (const link of findLinks(normalized, { withoutScheme: true, stopAfter })) {
    if (link.start < from) continue;
    pieces.push(normalized.slice(from, link.start));
    links += 1;
    from = link.start + link.textLength;
  }
  pieces.push(normalized.slice(from));
  return { pieces, links, units: pieces.reduce((sum, piece) => sum + piece.length, 0) };
}

/**
 * parseTweet's weight of text that holds no link: with its dots made commas (same weight, and
 * twitter-text looks for links only in a text with a dot), parseTweet weighs characters and
 * emoji alone, in linear time.
 */
function linkFreeWeight(piece: string): number {
  return piece === '' ? 0 : twitterText.parseTweet(piece.replaceAll('.', ',')).weightedLength;
}

const weigh = ({ pieces, links }: LinkFreeText): number =>
  links * xCharactersPerLink + pieces.reduce((sum, piece) => sum + linkFreeWeight(piece), 0);

/**
 * X's weighted length, as twitter-text's parseTweet computes it (links 23, CJK and emoji 2),
 * without its link search, which takes time quadratic in some texts: links are found by
 * findLinks instead.
 */
export function xWeightedLength(text: string): number {
  return weigh(linkFreeText(text.normalize('NFC')));
}

/**
 * xWeightedLength, unless the text certainly weighs more than `limit`: it holds more links than
 * fit, or text outside links too long to weigh at most `limit` (see xUnitsPerWeightedCharacter).
 * Then the rest is not weighed at all, parseTweet's emoji search costing microseconds per unit.
 */
export function boundedXWeightedLength(text: string, limit: number): BoundedCount {
  const fitting = Math.floor(limit / xCharactersPerLink);
  // More links than fit already tell: the search stops there.
  const found = linkFreeText(text.normalize('NFC'), fitting + 1);
  if (found.links > fitting) {
    return { overBecause: `it holds more than ${fitting} links, ${xCharactersPerLink} each` };
  }
  if (found.units > limit * xUnitsPerWeightedCharacter) {
    const reason = `its text outside links takes over ${limit * xUnitsPerWeightedCharacter} UTF-16 code units, `
      + `and no character takes more than ${xUnitsPerWeightedCharacter} per weighted character`;
    return { overBecause: reason };
  }
  return { length: weigh(found) };
}
