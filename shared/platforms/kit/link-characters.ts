import twitterText from 'twitter-text';

/**
 * One of twitter-text's regular expressions by its name at run time. Read through this check
 * because @types/twitter-text misnames some (validUrlQueryEndingChar for validUrlQueryEndingChars).
 */
function libraryPattern(name: string): RegExp {
  const pattern: unknown = Object.getOwnPropertyDescriptor(twitterText.regexen, name)?.value;
  if (!(pattern instanceof RegExp)) throw new Error(`twitter-text has no regular expression ${name}`);
  return pattern;
}

/**
 * One character class of twitter-text's link pattern, asked about single UTF-16 units (the
 * pattern has no `u` flag, so it reads a text unit by unit too). The class is twitter-text's own
 * regular expression, compiled with the `i` flag the link pattern carries, so both always agree;
 * the answers are cached per unit because the link finder asks about every unit of a text.
 */
class UnitClass {
  readonly #pattern: RegExp;
  /** 0 not asked yet, 1 outside the class, 2 inside. */
  readonly #answers = new Uint8Array(0x10000);

  constructor(source: string) {
    this.#pattern = new RegExp(`^(?:${source})$`, 'i');
  }

  /** Whether the unit at `index` of `text` is in the class; false past either end. */
  has(text: string, index: number): boolean {
    if (index < 0 || index >= text.length) return false;
    const unit = text.charCodeAt(index);
    let answer = this.#answers[unit] ?? 0;
    if (answer === 0) {
      answer = this.#pattern.test(String.fromCharCode(unit)) ? 2 : 1;
      this.#answers[unit] = answer;
    }
    return answer === 2;
  }
}

/**
 * validAsciiDomain's label class, which twitter-text does not export: built from the same part,
 * and checked against the pattern, so that a release changing it fails loudly.
 */
const asciiDomainLabel = `[\\-a-z0-9${libraryPattern('latinAccentChars').source}]`;
if (!libraryPattern('validAsciiDomain').source.startsWith(`(?:(?:${asciiDomainLabel}+)\\.)+`)) {
  throw new Error('twitter-text writes validAsciiDomain differently: review link-characters.ts');
}

/** The classes twitter-text's extractUrl is built of (regexp/extractUrl.js and its parts). */
export const linkCharacters = {
  /** May stand right before a link (validUrlPrecedingChars, without its `^`). */
  preceding: new UnitClass(libraryPattern('validUrlPrecedingChars').source),
  /** May be part of a host name label; `-` and `_` join labels besides (validDomainChars). */
  domain: new UnitClass(libraryPattern('validDomainChars').source),
  path: new UnitClass(libraryPattern('validGeneralUrlPathChars').source),
  /** May end a path; a balanced pair of parentheses may too (validUrlPathEndingChars). */
  pathEnding: new UnitClass(libraryPattern('validUrlPathEndingChars').source),
  query: new UnitClass(libraryPattern('validUrlQueryChars').source),
  queryEnding: new UnitClass(libraryPattern('validUrlQueryEndingChars').source),
  /** twitter-text's spaces: no part of a link holds one. */
  space: new UnitClass(`[${libraryPattern('spacesGroup').source}]`),
  /** A label of validAsciiDomain, the part of a host name a link without scheme keeps. */
  asciiDomain: new UnitClass(asciiDomainLabel),
};

/** The next space, searched natively (callers set `lastIndex`). */
export const spaces = new RegExp(`[${libraryPattern('spacesGroup').source}]`, 'g');

/**
 * A unit no host name label holds (neither a domain character nor `-` or `_`): between two of
 * them lies a label run. Searched natively with `test`, which allocates nothing (callers set
 * `lastIndex`).
 */
export const labelBreak = new RegExp(`(?!${libraryPattern('validDomainChars').source}|[-_])[^]`, 'gi');

/**
 * The places the scan of extractUrl can match at: a unit allowed before a link followed by a
 * domain character (a scheme starts with one), or the text's start before one. Searched natively
 * (callers set `lastIndex`), so the scan's own code runs once per such place, not once per unit.
 */
export const linkAttemptPlaces = new RegExp(
  `(?:${libraryPattern('validUrlPrecedingChars').source})(?=${libraryPattern('validDomainChars').source})`,
  'gi',
);

/** How twitter-text writes its lists of top-level domains: one alternation, then a lookahead. */
const tldListPrefix = '(?:(?:';
const tldListSuffix = ')(?=[^0-9a-zA-Z@+-]|$))';

interface TldList {
  /** The entries of ASCII letters only, in a trie of lower-case letters, with their place in the alternation. */
  ascii: AsciiTrie;
  /** The other entries by their first unit (case-folded), in the order the alternation tries them. */
  byFirstUnit: ReadonlyMap<number, readonly { entry: string; place: number }[]>;
}

/** A trie over `a` to `z`: reading a run of letters costs one step per letter and no allocation. */
interface AsciiTrie {
  children: (AsciiTrie | undefined)[];
  /** The place in the alternation of the entry ending here, if one does. */
  place: number | undefined;
}

const newTrie = (): AsciiTrie => ({ children: new Array<AsciiTrie | undefined>(26), place: undefined });

function addToTrie(trie: AsciiTrie, entry: string, place: number): void {
  let node = trie;
  for (let offset = 0; offset < entry.length; offset += 1) {
    const letter = entry.charCodeAt(offset) - 0x61;
    const child = node.children[letter] ?? newTrie();
    node.children[letter] = child;
    node = child;
  }
  node.place = place;
}

/** Case-folded units, computed once each: TLD comparisons fold every unit they read. */
const foldings = new Int32Array(0x10000).fill(-1);

/**
 * Case folding as a regular expression with `i` and without `u` does it (ECMAScript's
 * Canonicalize): upper case, unless that takes a non-ASCII unit to ASCII or to several units.
 */
function folded(unit: number): number {
  const known = foldings[unit] ?? -1;
  if (known >= 0) return known;
  const upper = String.fromCharCode(unit).toUpperCase();
  const folding = upper.length === 1 ? upper.charCodeAt(0) : unit;
  const answer = unit >= 128 && folding < 128 ? unit : folding;
  foldings[unit] = answer;
  return answer;
}

/**
 * The top-level domains twitter-text lists, validGTLD's then validCCTLD's: its alternation tries
 * them in this order, and the places keep it.
 */
function readTldLists(patterns: RegExp[]): TldList {
  const ascii = newTrie();
  const byFirstUnit = new Map<number, { entry: string; place: number }[]>();
  const entries = patterns.flatMap(({ source }) => {
    // Read from the library so a new release's domains count at once; a changed shape must fail loudly.
    if (!source.startsWith(tldListPrefix) || !source.endsWith(tldListSuffix)) {
      throw new Error('twitter-text writes its top-level domains differently: review link-characters.ts');
    }
    return source.slice(tldListPrefix.length, -tldListSuffix.length).split('|');
  });
  entries.forEach((entry, place) => {
    if (entry === '' || /[\\()[\]{}?*+.^$]/.test(entry)) {
      throw new Error(`twitter-text lists a top-level domain SPS cannot read: ${entry}`);
    }
    if (/^[a-z]+$/.test(entry)) {
      addToTrie(ascii, entry, place);
      return;
    }
    const first = folded(entry.charCodeAt(0));
    const same = byFirstUnit.get(first) ?? [];
    same.push({ entry, place });
    byFirstUnit.set(first, same);
  });
  return { ascii, byFirstUnit };
}

/** Shared by every look-up that finds no entry, so none allocates. */
const noEntries: readonly { entry: string; place: number }[] = [];

const listedTlds = readTldLists([libraryPattern('validGTLD'), libraryPattern('validCCTLD')]);

const isAsciiLetterOrDigit = (unit: number): boolean =>
  (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);

/** The lookahead after a listed domain: no ASCII letter, digit, `@`, `+` or `-` follows. */
function endsDomain(text: string, index: number, limit: number): boolean {
  if (index >= limit) return true;
  const unit = text.charCodeAt(index);
  return !isAsciiLetterOrDigit(unit) && unit !== 0x40 && unit !== 0x2b && unit !== 0x2d;
}

function startsWithFolded(text: string, index: number, limit: number, entry: string): boolean {
  if (index + entry.length > limit) return false;
  for (let offset = 0; offset < entry.length; offset += 1) {
    if (folded(text.charCodeAt(index + offset)) !== folded(entry.charCodeAt(offset))) return false;
  }
  return true;
}

const isPunycodeUnit = (unit: number): boolean => isAsciiLetterOrDigit(unit) || unit === 0x2d;

/**
 * Where the entry of `list` the alternation tries first matches at `index` ends, or -1. An
 * entry of ASCII letters must end where the run of ASCII letters and digits ends (the lookahead
 * allows no letter or digit after it): the trie finds the only candidate, so the work per place
 * stays small however long the list.
 */
function listedEnd(list: TldList, text: string, index: number, limit: number): number {
  let node: AsciiTrie | undefined = list.ascii;
  let end = index;
  while (node !== undefined && end < limit && isAsciiLetterOrDigit(text.charCodeAt(end))) {
    const letter = (text.charCodeAt(end) | 0x20) - 0x61;
    node = letter >= 0 && letter < 26 ? node.children[letter] : undefined;
    end += 1;
  }
  const asciiPlace = node?.place !== undefined && endsDomain(text, end, limit) ? node.place : Number.POSITIVE_INFINITY;
  for (const { entry, place } of list.byFirstUnit.get(folded(text.charCodeAt(index))) ?? noEntries) {
    if (place > asciiPlace) break;
    if (startsWithFolded(text, index, limit, entry) && endsDomain(text, index + entry.length, limit)) {
      return index + entry.length;
    }
  }
  return asciiPlace === Number.POSITIVE_INFINITY ? -1 : end;
}

/**
 * Where the top-level domain twitter-text would match at `index` ends (a listed one, else
 * validPunycode), or -1; `limit` is where the searched text ends, for the
 * lookahead's `$`. Constant work per call (see listedEnd).
 */
export function tldEnd(text: string, index: number, limit: number): number {
  if (index >= limit) return -1;
  const listed = listedEnd(listedTlds, text, index, limit);
  if (listed >= 0) return listed;
  if (startsWithFolded(text, index, limit, 'xn--') && index + 4 < limit && isPunycodeUnit(text.charCodeAt(index + 4))) {
    let end = index + 5;
    while (end < limit && isPunycodeUnit(text.charCodeAt(end))) end += 1;
    return end;
  }
  return -1;
}
