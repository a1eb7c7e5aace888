/**
 * Rich text of a post: Bluesky does not parse markup, the record carries facets, each a byte
 * range of the text's UTF-8 encoding (start inclusive, end exclusive) with what it means
 * (open-and-community.md 1.2). JavaScript indexes count UTF-16 units, so every range is turned
 * into bytes here.
 */
import { graphemeCount } from '../kit/grapheme-count.ts';

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: FacetFeature[];
}

/** Finds the DID of a handle; null when no account has it (the text then stays plain). */
export type ResolveHandle = (handle: string) => Promise<string | null>;

interface Found {
  /** UTF-16 range in the text. */
  start: number;
  end: number;
  feature: FacetFeature | { kind: 'mention'; handle: string };
}

const url = /https?:\/\/[^\s<>"]+/g;
/** A handle is a domain name: labels of letters, digits and hyphens, the last starting with a letter. */
const mention = /(^|[\s(])@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?)/gi;
const hashtag = /(^|\s)[#\uFF03]([^\s#\uFF03]+)/g;
const maxTagGraphemes = 64;

/** Sentence punctuation after a link is not part of it; a closing bracket only when it opens none. */
function trimLink(candidate: string): string {
  let trimmed = candidate.replace(/(?<![.,;:!?'"])[.,;:!?'"]+$/, '');
  if (trimmed.endsWith(')') && !trimmed.includes('(')) trimmed = trimmed.slice(0, -1);
  return trimmed;
}

function links(text: string): Found[] {
  return [...text.matchAll(url)].map((match) => {
    const uri = trimLink(match[0]);
    return {
      start: match.index,
      end: match.index + uri.length,
      feature: { $type: 'app.bsky.richtext.facet#link', uri },
    };
  });
}

function mentions(text: string): Found[] {
  return [...text.matchAll(mention)].map((match) => {
    const handle = (match[2] ?? '').toLowerCase();
    const start = match.index + (match[1] ?? '').length;
    return { start, end: start + 1 + handle.length, feature: { kind: 'mention', handle } };
  });
}

function hashtags(text: string): Found[] {
  return [...text.matchAll(hashtag)].flatMap((match): Found[] => {
    const tag = (match[2] ?? '').replace(/(?<!\p{P})\p{P}+$/u, '');
    // "#1" is a number, not a tag; an over-long tag is plain text rather than a refused record.
    if (tag === '' || /^\d+$/.test(tag) || graphemeCount(tag) > maxTagGraphemes) return [];
    const start = match.index + (match[1] ?? '').length;
    return [{ start, end: start + 1 + tag.length, feature: { $type: 'app.bsky.richtext.facet#tag', tag } }];
  });
}

/** Facets of a post's text, in text order; a mention of a handle nobody has stays plain text. */
export async function detectFacets(text: string, resolveHandle: ResolveHandle): Promise<Facet[]> {
  const found = [...links(text), ...mentions(text), ...hashtags(text)].sort((a, b) => a.start - b.start);
  // A "#" or "@" inside a link belongs to the link.
  const kept = found.filter((item, index) => found.slice(0, index).every((before) => before.end <= item.start));
  const byteOffset = (index: number): number => Buffer.byteLength(text.slice(0, index), 'utf8');
  const facets: Facet[] = [];
  for (const item of kept) {
    let feature: FacetFeature;
    if ('kind' in item.feature) {
      const did = await resolveHandle(item.feature.handle);
      if (did === null) continue;
      feature = { $type: 'app.bsky.richtext.facet#mention', did };
    } else {
      feature = item.feature;
    }
    facets.push({ index: { byteStart: byteOffset(item.start), byteEnd: byteOffset(item.end) }, features: [feature] });
  }
  return facets;
}
