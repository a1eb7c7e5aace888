import { randomBytes } from 'node:crypto';
import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';
import type { ChannelPostInput } from '../posts/post-input.ts';

/** The path short links are served under, at the host root beside /api (api/short-links/). */
export const shortLinkPath = '/l';
/** 9 random bytes: 12 URL-safe characters, 72 bits, so codes cannot be guessed or enumerated. */
const codeBytes = 9;
export const shortCodePattern = /^[A-Za-z0-9_-]{12}$/;

/**
 * http(s) addresses in post text. Closing punctuation is trimmed off afterwards: in "see
 * https://x.org/a." the dot ends the sentence, not the address.
 */
const linkPattern = /https?:\/\/[^\s<>"']+/g;
const closingPunctuation = new Set(['.', ',', ';', ':', '!', '?', ')', ']', '}']);

/** The address without the punctuation that closes the sentence around it (a loop: no backtracking). */
function withoutClosingPunctuation(found: string): string {
  let end = found.length;
  while (end > 0 && closingPunctuation.has(found.charAt(end - 1))) end -= 1;
  return found.slice(0, end);
}

/** One link replaced in a channel post: where it was and what it now reads. */
export interface PlannedShortLink {
  code: string;
  part: number;
  target: string;
}

export interface ShortenedChannelPost {
  input: ChannelPostInput;
  links: PlannedShortLink[];
}

/** Where short links point: the backend's public address without its /api suffix, plus /l. */
export function shortLinkBase(backendUrl: string): string {
  return `${backendUrl.replace(trailingSlashes, '').replace(/\/api$/, '')}${shortLinkPath}`;
}

export function newShortCode(): string {
  return randomBytes(codeBytes).toString('base64url');
}

/**
 * Replaces every http(s) link in the parts' content by `<base>/<code>`, one code per distinct
 * address in the channel post (so its clicks count for that post and channel). Links already
 * short (under `base`) are left alone, so editing a shortened post does not shorten twice.
 * Done before the platform checks, so text limits count the short address the platform will get.
 */
export function shortenChannelPost(
  input: ChannelPostInput,
  base: string,
  newCode: () => string = newShortCode,
): ShortenedChannelPost {
  const codes = new Map<string, string>();
  const links: PlannedShortLink[] = [];
  const value = input.value.map((part, position) => ({
    ...part,
    content: part.content.replace(linkPattern, (found) => {
      const target = withoutClosingPunctuation(found);
      const rest = found.slice(target.length);
      if (target.startsWith(`${base}/`)) return found;
      let code = codes.get(target);
      if (code === undefined) {
        code = newCode();
        codes.set(target, code);
        links.push({ code, part: position, target });
      }
      return `${base}/${code}${rest}`;
    }),
  }));
  return { input: { ...input, value }, links };
}

/** Stores the links of one channel post once its root's id and channel are known. */
export async function storeShortLinks(
  db: Database,
  owner: { organizationId: Types.ObjectId; postId: Types.ObjectId; channelId: Types.ObjectId },
  links: PlannedShortLink[],
  now: Date,
): Promise<void> {
  if (links.length === 0) return;
  await db.shortLinks.insertMany(
    links.map((link) => ({ ...owner, ...link, clicks: 0, createdAt: now })),
    { ordered: true },
  );
}

/** What POST /posts carries that shortening reads. */
interface ShortenableRequest {
  shortLink?: boolean | undefined;
  posts: ChannelPostInput[];
}

/**
 * With `shortLink: true`, the request with each channel post's links shortened and, per
 * `posts[]` entry, the links to store; otherwise the request as given. No public address to
 * point at is an error, never a silent skip.
 */
export function shortenRequest<T extends ShortenableRequest>(
  input: T,
  backendUrl: string | undefined,
): { input: T; links: PlannedShortLink[][] } {
  if (input.shortLink !== true) return { input, links: [] };
  if (backendUrl === undefined) throw new Error('shortLink needs the public backend address (BACKEND_URL)');
  const base = shortLinkBase(backendUrl);
  const shortened = input.posts.map((post) => shortenChannelPost(post, base));
  return {
    input: { ...input, posts: shortened.map((post) => post.input) },
    links: shortened.map((post) => post.links),
  };
}
