import twitterText from 'twitter-text';
import { labelBreak, linkAttemptPlaces, linkCharacters as classes, spaces, tldEnd } from './link-characters.ts';
import { asciiLabelLength } from './punycode-length.ts';

/** A link as twitter-text's extractUrlsWithIndices reports it. */
export interface FoundLink {
  start: number;
  end: number;
  /**
   * Length of the link's text as twitter-text reports it (`url`), which parseTweet skips when it
   * weighs a post. It differs from `end - start` for a link without scheme whose host name holds
   * non-ASCII labels: twitter-text keeps only the ASCII ones in the text, not in the indices.
   */
  textLength: number;
}

/** twitter-text refuses longer links (MAX_URL_LENGTH), their scheme counted as if twice. */
const maxLinkLength = 4096;
const maxTcoSlugLength = 40;
/** The scheme twitter-text assumes for a link written without one, when it checks the length. */
const assumedSchemeLength = 'https://'.length;
/** A host name label is at most 63 characters once encoded, so at most 126 UTF-16 units before. */
const longestLabelUnits = 126;

/** One match of twitter-text's extractUrl at the place its scan tried. */
interface LinkMatch {
  /** Where the match starts: the unit before the link, or the link itself at the text's start. */
  start: number;
  urlStart: number;
  schemeLength: number;
  domainStart: number;
  domainEnd: number;
  hasPath: boolean;
  end: number;
}

const isDigit = (unit: number): boolean => unit >= 0x30 && unit <= 0x39;
const dot = 0x2e;

/** ASCII lower case of the unit at `index` (letters only; other units unchanged). */
const lowerAt = (text: string, index: number): number => text.charCodeAt(index) | 0x20;

/** 7 or 8 for `http://` or `https://` (any case) at `index`, else 0. */
function schemeLength(text: string, index: number): number {
  // Compared unit by unit: the scan asks at every place, and slicing there cost more than the rest.
  if (lowerAt(text, index) !== 0x68 || lowerAt(text, index + 1) !== 0x74) return 0;
  if (lowerAt(text, index + 2) !== 0x74 || lowerAt(text, index + 3) !== 0x70) return 0;
  const secure = lowerAt(text, index + 4) === 0x73 ? 1 : 0;
  return text.startsWith('://', index + 4 + secure) ? 7 + secure : 0;
}

/**
 * Finds the links twitter-text's `extractUrlsWithIndices` finds, in time linear in the text.
 * twitter-text scans with one large regular expression whose host name part backtracks: from
 * every place a link could start it reads the whole run of host name characters again, so
 * 200 KB of `a-a-a-…` took minutes, and some single links (many parentheses in a path) take
 * time quadratic in their length. This scanner makes the same decisions with tables built once
 * per text: which label runs form valid host names, where a listed top-level domain can follow,
 * how far a path or query reaches. Each place is then decided in constant time.
 */
class LinkScan {
  readonly #text: string;
  readonly #withoutScheme: boolean;
  readonly #stopAfter: number;
  /** For a unit of a label run (domain characters, `-`, `_`): where the run ends; 0 elsewhere. */
  readonly #labelRunEnd: Int32Array;
  /** The first `_` at or after each place (the text's length when none). */
  readonly #nextUnderscore: Int32Array;
  /**
   * For a place right after a `.`: where the longest host name made of labels from here on
   * ends (its top-level domain included), or -1. twitter-text's greedy subdomains take as many
   * labels as it can before the name and its top-level domain, so the furthest end wins.
   */
  readonly #hostFrom: Int32Array;
  /** tldEnd at each place, computed once: -2 until asked. */
  readonly #tldEnds: Int32Array;
  /**
   * For a domain character right after a `.`: where the scan resumes once a host name starting
   * there was found wanting (see #resumeWithin). Tabled with #hostFrom, from the end backwards.
   */
  readonly #resumeFrom: Int32Array;

  constructor(text: string, withoutScheme: boolean, stopAfter: number) {
    this.#text = text;
    this.#withoutScheme = withoutScheme;
    this.#stopAfter = stopAfter;
    const length = text.length;
    // Tables filled run by run and with native searches: a loop over every unit cost more than
    // the whole scan on long texts.
    this.#labelRunEnd = new Int32Array(length + 1);
    labelBreak.lastIndex = 0;
    for (let runStart = 0; runStart < length; ) {
      const runEnd = labelBreak.test(text) ? labelBreak.lastIndex - 1 : length;
      this.#labelRunEnd.fill(runEnd, runStart, runEnd);
      runStart = runEnd + 1;
    }
    this.#nextUnderscore = new Int32Array(length + 1);
    let from = 0;
    for (let found = text.indexOf('_'); found >= 0; found = text.indexOf('_', found + 1)) {
      this.#nextUnderscore.fill(found, from, found + 1);
      from = found + 1;
    }
    this.#nextUnderscore.fill(length, from);
    this.#hostFrom = new Int32Array(length + 1).fill(-1);
    this.#tldEnds = new Int32Array(length + 1).fill(-2);
    this.#resumeFrom = new Int32Array(length + 1);
    for (let found = text.lastIndexOf('.'); found >= 0; found = found > 0 ? text.lastIndexOf('.', found - 1) : -1) {
      if (!classes.domain.has(text, found + 1)) continue;
      this.#hostFrom[found + 1] = this.#hostEnd(found + 1);
      this.#resumeFrom[found + 1] = this.#resumeWithin(found + 1);
    }
  }

  #runEnd(index: number): number {
    return this.#labelRunEnd[index] ?? index;
  }

  #underscoreFrom(index: number): number {
    return this.#nextUnderscore[index] ?? this.#text.length;
  }

  #tldAt(index: number): number {
    let end = this.#tldEnds[index] ?? -2;
    if (end === -2) {
      end = tldEnd(this.#text, index, this.#text.length);
      this.#tldEnds[index] = end;
    }
    return end;
  }

  /**
   * Where a host name starting at `start` ends, or -1: validSubdomain* validDomainName and a
   * top-level domain. A label starts and ends with a domain character; the name's own label
   * (validDomainName) has no `_`. `start` may be inside a label run: a match's first label
   * starts wherever the match does.
   */
  #hostEnd(start: number): number {
    const text = this.#text;
    if (!classes.domain.has(text, start)) return -1;
    const labelEnd = this.#runEnd(start);
    if (!classes.domain.has(text, labelEnd - 1) || text.charCodeAt(labelEnd) !== dot) return -1;
    const next = labelEnd + 1;
    const further = next < text.length ? (this.#hostFrom[next] ?? -1) : -1;
    if (further >= 0) return further;
    return this.#underscoreFrom(start) < labelEnd ? -1 : this.#tldAt(next);
  }

  /**
   * After the attempt at `start` found no match: the first place where one may still be found.
   * The attempt read a host name from `domainStart` (after the scheme, if one was there).
   */
  #resumeAfter(start: number): number {
    const text = this.#text;
    let domainStart = start === 0 && classes.domain.has(text, 0) ? 0 : start + 1;
    domainStart += schemeLength(text, domainStart);
    return Math.max(start + 1, classes.domain.has(text, domainStart) ? this.#resumeWithin(domainStart) : start + 1);
  }

  /**
   * Where to resume once no host name starts at `domainStart`, a domain character. A name read
   * from inside a label run ends as one read from the run's start does, and one read from the
   * next label on is one read from here with this label as a subdomain: so every later start in
   * the run, and in the labels after it while they are valid subdomains, fails the same way
   * (twitter-text reads them all again, each time to the end, which made its scan quadratic).
   * But for the places that change the outcome: after a label's last `_` (a name without `_`
   * may start there, its top-level domain after the label), a label starting otherwise than
   * with a domain character, and a scheme closing a run (`…http://` still gets its attempt).
   */
  #resumeWithin(domainStart: number): number {
    const text = this.#text;
    const runEnd = this.#runEnd(domainStart);
    const endsWell = classes.domain.has(text, runEnd - 1);
    const dotAfter = text.charCodeAt(runEnd) === dot;
    let resume = runEnd - 1;
    if (endsWell && dotAfter) {
      const next = runEnd + 1;
      resume = classes.domain.has(text, next) ? (this.#resumeFrom[next] ?? runEnd) : runEnd;
    }
    for (let closing = runEnd - 5; closing <= runEnd - 4; closing += 1) {
      if (closing >= domainStart && schemeLength(text, closing) > 0) resume = Math.min(resume, closing - 1);
    }
    if (endsWell && dotAfter && this.#underscoreFrom(domainStart) < runEnd && this.#tldAt(runEnd + 1) >= 0) {
      resume = Math.min(resume, text.lastIndexOf('_', runEnd - 1));
    }
    return resume;
  }

  /**
   * The longest path after a `/` at `start - 1`. validUrlPath repeats pieces that are either
   * path characters and balanced parentheses ending with a path ending character, or one pair
   * of balanced parentheses alone (the ending's alternation is not grouped in twitter-text, so
   * parentheses end a piece only as a piece of their own). So the path may end after an ending
   * character, or after parentheses that start where it could end.
   */
  #pathEnd(start: number): number {
    const text = this.#text;
    let index = start;
    let canEndHere = true;
    let end = start;
    for (;;) {
      if (classes.path.has(text, index)) {
        index += 1;
        canEndHere = classes.pathEnding.has(text, index - 1);
      } else if (text[index] === '(') {
        const group = this.#parenthesesEnd(index);
        if (group < 0) break;
        index = group;
      } else {
        break;
      }
      if (canEndHere) end = index;
    }
    return end;
  }

  /** validUrlBalancedParens at `open`: `(` pc+ `)`, or `(` pc* `(` pc+ `)` pc* `)`. */
  #parenthesesEnd(open: number): number {
    const text = this.#text;
    const skipPath = (from: number): number => {
      let index = from;
      while (classes.path.has(text, index)) index += 1;
      return index;
    };
    const inner = skipPath(open + 1);
    if (inner > open + 1 && text[inner] === ')') return inner + 1;
    if (text[inner] !== '(') return -1;
    const nested = skipPath(inner + 1);
    if (nested === inner + 1 || text[nested] !== ')') return -1;
    const after = skipPath(nested + 1);
    return text[after] === ')' ? after + 1 : -1;
  }

  /** The longest query after a `?` at `start - 1` ending with a query ending character, or -1. */
  #queryEnd(start: number): number {
    let end = -1;
    for (let index = start; classes.query.has(this.#text, index); index += 1) {
      if (classes.queryEnding.has(this.#text, index)) end = index + 1;
    }
    return end;
  }

  /** The match twitter-text's extractUrl makes when its scan tries the place `start`, or null. */
  #attempt(start: number): LinkMatch | null {
    // The preceding character: a unit allowed before a link, else `^` at the text's start.
    if (classes.preceding.has(this.#text, start)) {
      const match = this.#attemptFrom(start, start + 1);
      if (match !== null) return match;
    }
    return start === 0 ? this.#attemptFrom(start, 0) : null;
  }

  /** The link part of an attempt, from `urlStart`: with the scheme if there is one, else without. */
  #attemptFrom(start: number, urlStart: number): LinkMatch | null {
    const scheme = schemeLength(this.#text, urlStart);
    if (scheme > 0) {
      const domainStart = urlStart + scheme;
      const domainEnd = this.#hostEnd(domainStart);
      if (domainEnd >= 0) return this.#extend({ start, urlStart, schemeLength: scheme, domainStart, domainEnd });
    }
    const domainEnd = this.#hostEnd(urlStart);
    return domainEnd >= 0 ? this.#extend({ start, urlStart, schemeLength: 0, domainStart: urlStart, domainEnd }) : null;
  }

  /** Port, path and query after the host name, each as long as twitter-text's greedy parts take. */
  #extend(match: Omit<LinkMatch, 'hasPath' | 'end'>): LinkMatch {
    const text = this.#text;
    let end = match.domainEnd;
    if (text[end] === ':' && isDigit(text.charCodeAt(end + 1))) {
      end += 2;
      while (isDigit(text.charCodeAt(end))) end += 1;
    }
    const hasPath = text[end] === '/';
    if (hasPath) end = this.#pathEnd(end + 1);
    if (text[end] === '?') end = Math.max(end, this.#queryEnd(end + 1));
    return { ...match, hasPath, end };
  }

  /** Whether twitter-text keeps the match (isValidUrl): labels of 1 to 63 encoded characters, 4096 at most. */
  #isValid(match: LinkMatch): boolean {
    const text = this.#text;
    const scheme = match.schemeLength > 0 ? match.schemeLength : assumedSchemeLength;
    if (scheme + match.end - match.urlStart > maxLinkLength) return false;
    const punycoded = text.startsWith('xn--', match.domainStart);
    if (punycoded && this.#asciiDomains(match.domainStart, match.domainEnd).length === 0) return false;
    for (let labelStart = match.domainStart; labelStart < match.domainEnd; ) {
      const dotAt = text.indexOf('.', labelStart);
      const labelEnd = dotAt < 0 || dotAt > match.domainEnd ? match.domainEnd : dotAt;
      if (!this.#isValidLabel(labelStart, labelEnd)) return false;
      labelStart = labelEnd + 1;
    }
    return true;
  }

  /** A label of 1 to 63 characters once encoded as the punycode package encodes it. */
  #isValidLabel(start: number, end: number): boolean {
    if (end - start > longestLabelUnits) return false;
    let printableAscii = true;
    for (let index = start; index < end && printableAscii; index += 1) {
      const unit = this.#text.charCodeAt(index);
      printableAscii = unit >= 0x20 && unit <= 0x7e;
    }
    // Most labels are ASCII and stay as they are: only the others are encoded.
    const length = printableAscii ? end - start : asciiLabelLength(this.#text.slice(start, end));
    return length !== null && length >= 1 && length <= 63;
  }

  /**
   * The ASCII host names inside `[start, end)` as validAsciiDomain's global replace finds them:
   * labels of ASCII letters, digits, `-` and Latin accents, each before a `.`, then a
   * top-level domain. Linear like the rest: the furthest name from each label is tabled.
   */
  #asciiDomains(start: number, end: number): [number, number][] {
    const text = this.#text;
    const runEnd = new Int32Array(end - start + 1);
    runEnd[end - start] = end;
    for (let index = end - 1; index >= start; index -= 1) {
      runEnd[index - start] = classes.asciiDomain.has(text, index) ? (runEnd[index - start + 1] ?? index + 1) : index;
    }
    const nameFrom = new Int32Array(end - start + 1).fill(-1);
    const nameEnd = (from: number): number => {
      const labelEnd = runEnd[from - start] ?? from;
      if (labelEnd === from || labelEnd >= end || text[labelEnd] !== '.') return -1;
      const further = labelEnd + 1 < end ? (nameFrom[labelEnd + 1 - start] ?? -1) : -1;
      return further >= 0 ? further : tldEnd(text, labelEnd + 1, end);
    };
    for (let index = end - 1; index > start; index -= 1) {
      if (text[index - 1] === '.') nameFrom[index - start] = nameEnd(index);
    }
    const names: [number, number][] = [];
    for (let index = start; index < end; ) {
      const found = nameEnd(index);
      if (found >= 0) {
        names.push([index, found]);
        index = found;
      } else {
        index += 1;
      }
    }
    return names;
  }

  /** What extractUrlsWithIndices reports for one match: nothing, the link, or its ASCII host names. */
  #report(match: LinkMatch): FoundLink[] {
    if (!this.#isValid(match)) return [];
    const text = this.#text;
    const urlLength = match.end - match.urlStart;
    if (match.schemeLength > 0) {
      const isTco = match.domainEnd - match.domainStart === 4
        && text.slice(match.domainStart, match.domainEnd).toLowerCase() === 't.co';
      // A t.co link stops after its slug and query, and a slug over 40 characters is no link.
      const tco = isTco ? twitterText.regexen.validTcoUrl.exec(text.slice(match.urlStart, match.end)) : null;
      if (tco === null) return [{ start: match.urlStart, end: match.end, textLength: urlLength }];
      if ((tco[1] ?? '').length > maxTcoSlugLength) return [];
      return [{ start: match.urlStart, end: match.urlStart + tco[0].length, textLength: tco[0].length }];
    }
    const before = match.start === match.urlStart ? '' : (text[match.start] ?? '');
    // twitter-text's invalidUrlWithoutProtocolPrecedingChars: no name right after `-`, `_`, `.` or `/`.
    if (!this.#withoutScheme || (before !== '' && '-_./'.includes(before))) return [];
    const names = this.#asciiDomains(match.domainStart, match.domainEnd);
    return names.map(([start, end], index): FoundLink => {
      const last = index === names.length - 1;
      if (!last || !match.hasPath) return { start, end, textLength: end - start };
      // twitter-text extends the last name over the path, and its text over the path too.
      const domainLength = match.domainEnd - match.domainStart;
      return { start, end: match.end, textLength: urlLength - domainLength + end - start };
    });
  }

  links(): FoundLink[] {
    const found: FoundLink[] = [];
    const text = this.#text;
    // twitter-text's loop: the leftmost match from where the last one ended, kept or not.
    for (let from = 0; from < text.length && found.length < this.#stopAfter; ) {
      linkAttemptPlaces.lastIndex = from;
      if (!linkAttemptPlaces.test(text)) break;
      // `test` allocates nothing; a place is one unit, or the empty `^` at the text's start.
      const place = linkAttemptPlaces.lastIndex === 0 ? 0 : linkAttemptPlaces.lastIndex - 1;
      const match = this.#attempt(place);
      if (match === null) {
        from = this.#resumeAfter(place);
        continue;
      }
      for (const link of this.#report(match)) found.push(link);
      from = match.end;
    }
    return found;
  }
}

/**
 * Where the word holding `index` starts, counting the space before it: the attempt at that space
 * is the one that reads the word's first unit as a link's. `floor` is where the last word ended.
 */
function wordStart(text: string, index: number, floor: number): number {
  let start = index;
  while (start > floor && !classes.space.has(text, start)) start -= 1;
  return start;
}

/** Where the word holding `index` ends: at the next space, or the text's end. */
function wordEnd(text: string, index: number): number {
  spaces.lastIndex = index;
  return spaces.test(text) ? spaces.lastIndex - 1 : text.length;
}

/** Words with a link closer than this to the last one are scanned with it, in one go. */
const joinedWordsGap = 256;

/**
 * The links of `text` as `twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol })`
 * finds them, in linear time. `withoutScheme` also finds host names written without `http(s)://`
 * (X counts those; Mastodon does not). With `stopAfter`, stops once it found that many.
 */
export function findLinks(text: string, options: { withoutScheme: boolean; stopAfter?: number }): FoundLink[] {
  // No part of a link is a space, so twitter-text's scan decides word by word, and only words
  // that can hold a link need it: every host name has a dot, and only a link with a scheme
  // counts when links without one do not (the scheme-less ones only hide what they cover, in
  // their own word). Most of a post is words without either.
  const anchor = options.withoutScheme ? '.' : '://';
  const stopAfter = options.stopAfter ?? Number.POSITIVE_INFINITY;
  const found: FoundLink[] = [];
  for (let from = 0, at = text.indexOf(anchor); at >= 0 && found.length < stopAfter; at = text.indexOf(anchor, from)) {
    const start = wordStart(text, at, from);
    let end = wordEnd(text, at);
    for (let next = text.indexOf(anchor, end); next >= 0 && next - end <= joinedWordsGap; ) {
      end = wordEnd(text, next);
      next = text.indexOf(anchor, end);
    }
    for (const link of new LinkScan(text.slice(start, end), options.withoutScheme, stopAfter - found.length).links()) {
      found.push({ start: start + link.start, end: start + link.end, textLength: link.textLength });
    }
    from = end;
  }
  return found;
}
