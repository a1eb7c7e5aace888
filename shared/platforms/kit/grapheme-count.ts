const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The most UTF-16 units SPS lets one user-perceived character take when it bounds a count:
 * the longest emoji sequences (flags of subdivisions, families with skin tones) take 14 to 19,
 * and Unicode's Stream-Safe Text Format (UAX #15) puts at most 30 combining marks on a base
 * character, so 62 at most. A text longer than this many units per allowed character is
 * refused before it is segmented (segmenting costs up to half a microsecond per unit): only a
 * text stacking more marks than Stream-Safe text allows could still have fitted.
 */
export const maxUnitsPerGrapheme = 64;

/**
 * Printable ASCII, tabs and line breaks: each character is a grapheme cluster of its own, but for
 * CR LF, which is one. Most posts are such text, and segmenting them cost more api CPU under load
 * than any other platform rule.
 */
const plainAscii = /^[ -~\t\n\r]*$/;

/** How many user-perceived characters (extended grapheme clusters, UAX #29) `text` has. */
export function graphemeCount(text: string): number {
  if (plainAscii.test(text)) return text.length - (text.match(/\r\n/g)?.length ?? 0);
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}
