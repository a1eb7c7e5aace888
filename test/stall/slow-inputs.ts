/**
 * Text built to be slow for whatever reads it: long runs that keep a backtracking regular
 * expression, a URL or mention finder, a grapheme segmenter or a trimmer busy, each a short
 * unit repeated until the text fills a byte budget in the encoding it travels in.
 */
export const slowTextKinds = [
  'url-like', 'dotted', 'link-like', 'mention-like', 'hashtag-like', 'dots', 'emoji', 'combining', 'spaces',
] as const;
export type SlowTextKind = (typeof slowTextKinds)[number];

/** How a text travels: its size is counted in this encoding. */
export type Carrier = 'json' | 'form' | 'url' | 'header';

interface SlowPattern {
  /** Written once at the start. */
  head: string;
  /** Repeated to fill the budget. */
  unit: string;
  /** Written once at the end: what makes a near match fail at the last moment. */
  tail: string;
}

const patterns: Record<SlowTextKind, SlowPattern> = {
  // "http:" then a hyphenated run: URL finders try every position as the start of a host.
  'url-like': { head: 'http: ', unit: 'a-', tail: '!' },
  // Labels of a host name that never ends: domain and e-mail patterns backtrack over them.
  dotted: { head: '', unit: 'a.', tail: '!' },
  'link-like': { head: 'https://', unit: 'a.', tail: '/' },
  'mention-like': { head: '', unit: '@a', tail: '@' },
  'hashtag-like': { head: '', unit: '#a', tail: '#' },
  dots: { head: '', unit: '.', tail: '' },
  // A family joined by zero-width joiners: one grapheme made of seven code points.
  emoji: { head: '', unit: '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}', tail: '' },
  // One base letter carrying an endless run of accents: a single grapheme as long as the text.
  combining: { head: 'a', unit: '\u0301', tail: '' },
  // Whitespace that does not reach the end: trimming and `\s+$` patterns scan it again and again.
  spaces: { head: 'a', unit: ' \t', tail: 'a' },
};

/** Where one kind stands for all, the kinds take turns: the one for turn `turn`. */
export function kindAt(turn: number): SlowTextKind {
  return slowTextKinds[turn % slowTextKinds.length] ?? 'dotted';
}

/** Bytes `text` takes in `carrier`. */
export function carriedBytes(text: string, carrier: Carrier): number {
  switch (carrier) {
    // Without the quotes around a JSON string.
    case 'json': return Buffer.byteLength(JSON.stringify(text)) - 2;
    case 'form': return new URLSearchParams({ x: text }).toString().length - 2;
    case 'url': return encodeURIComponent(text).length;
    // Header values go as bytes: the UTF-8 of the text, read by Node as Latin-1.
    case 'header': return Buffer.byteLength(text);
  }
}

/** A slow text of `kind` that takes at most `budget` bytes in `carrier` (at least one unit). */
export function slowText(kind: SlowTextKind, budget: number, carrier: Carrier): string {
  const { head, unit, tail } = patterns[kind];
  const fixed = carriedBytes(head + tail, carrier);
  const repeats = Math.max(1, Math.floor((budget - fixed) / carriedBytes(unit, carrier)));
  return `${head}${unit.repeat(repeats)}${tail}`;
}

/** A header value carries bytes: the text's UTF-8 as Latin-1 characters, as Node writes them. */
export function asHeaderValue(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** JSON text of arrays nested as deep as `budget` bytes allow: `[[[…]]]`. */
export function nestedJson(budget: number): string {
  const depth = Math.max(1, Math.floor(budget / 2));
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** A form field name nested as deep as `budget` bytes allow once encoded: `a[a][a]…`. */
export function nestedFormKey(budget: number): string {
  const unitBytes = encodeURIComponent('[a]').length;
  return `a${'[a]'.repeat(Math.max(1, Math.floor((budget - 1) / unitBytes)))}`;
}
