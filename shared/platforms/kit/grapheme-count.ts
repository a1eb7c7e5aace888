const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

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
