import { fileTypeFromBuffer } from 'file-type';
import twitterText from 'twitter-text';

/**
 * The rules a Mastodon instance (4.x, default settings) applies to what a client sends,
 * written from its documentation and behaviour (../shared/platforms/open-and-community.md,
 * section 2), for the simulator. SPS's own checks live elsewhere; keeping these apart lets the
 * tests catch a registry rule that drifts from Mastodon's.
 */
export const maxStatusCharacters = 500;
export const maxMediaPerStatus = 4;
/** Every http(s) URL counts as this many characters, whatever its length. */
export const charactersPerUrl = 23;

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const wordLetters = String.raw`\p{L}\p{M}\p{N}\p{Pc}`;
const wordCharacter = `[${wordLetters}]`;
const userName = '[a-z0-9_]+(?:[.-]+[a-z0-9_]+)*';
/** `@user` or `@user@domain`, not inside a word or a URL path (Mastodon's Account::MENTION_RE). */
const mention = new RegExp(
  String.raw`(?<![=/]|${wordCharacter})@(${userName})(?:@[${wordLetters}.-]+${wordCharacter})?`,
  'giu',
);

/**
 * Length as Mastodon's StatusLengthValidator measures it: the content warning and the text
 * together, in grapheme clusters, each URL with a scheme as 23, `@user@domain` as `@user`.
 */
export function countedLength(spoilerText: string, text: string): number {
  const replacements: { start: number; end: number; with: string }[] = [];
  for (const url of twitterText.extractUrlsWithIndices(text, { extractUrlsWithoutProtocol: false })) {
    replacements.push({ start: url.indices[0], end: url.indices[1], with: 'x'.repeat(charactersPerUrl) });
  }
  for (const match of text.matchAll(mention)) {
    const start = match.index;
    const end = start + match[0].length;
    // A mention inside a URL is part of the URL.
    if (replacements.some((taken) => start < taken.end && end > taken.start)) continue;
    replacements.push({ start, end, with: `@${match[1] ?? ''}` });
  }
  replacements.sort((a, b) => a.start - b.start);
  let countable = '';
  let at = 0;
  for (const replacement of replacements) {
    countable += text.slice(at, replacement.start) + replacement.with;
    at = replacement.end;
  }
  countable += text.slice(at);
  return [...segmenter.segment(spoilerText + countable)].length;
}

/** MIME types MediaAttachment accepts (audio left out: SPS never sends it). */
const imageTypes = new Set([
  'image/jpeg', 'image/png', 'image/gif', 'image/heic', 'image/heif', 'image/webp', 'image/avif',
]);
const videoTypes = new Set(['video/mp4', 'video/x-m4v', 'video/quicktime', 'video/webm', 'video/ogg']);
export const supportedMimeTypes = [...imageTypes, ...videoTypes];
export const imageSizeLimit = 16 * 1024 * 1024;
export const videoSizeLimit = 99 * 1024 * 1024;

/**
 * What an upload is, judged from its bytes as Mastodon does (the declared part type is not
 * trusted): its kind, or why it is refused.
 */
export async function judgeUpload(
  head: Buffer,
  size: number,
): Promise<{ kind: 'image' | 'video'; mimeType: string } | { refused: string }> {
  const detected = await fileTypeFromBuffer(head);
  const mimeType = detected?.mime ?? 'application/octet-stream';
  const kind = imageTypes.has(mimeType) ? 'image' : videoTypes.has(mimeType) ? 'video' : null;
  if (kind === null) return { refused: 'Validation failed: File content type is invalid, File is invalid' };
  const limit = kind === 'image' ? imageSizeLimit : videoSizeLimit;
  if (size > limit) return { refused: `Validation failed: File file size must be less than ${limit / 1024 / 1024} MB` };
  return { kind, mimeType };
}

/**
 * OAuth scopes each endpoint requires: a token needs one of them. `write` covers every
 * `write:*` and `read` every `read:*`, as in Mastodon.
 */
export function hasScope(granted: readonly string[], required: readonly string[]): boolean {
  return required.some((scope) => granted.includes(scope) || granted.includes(scope.split(':')[0] ?? scope));
}

export const outsideScopes = 'This action is outside the authorized scopes';

/** A refusal as Mastodon words it: `{error}` with its status. */
export interface Refusal {
  status: number;
  error: string;
}

/** 401 without a valid token, 403 when the token has none of the scopes. */
export function authorizationRefusal(
  account: { scopes: readonly string[] } | null,
  scopes: readonly string[],
): Refusal | null {
  if (account === null) return { status: 401, error: 'The access token is invalid' };
  if (!hasScope(account.scopes, scopes)) return { status: 403, error: outsideScopes };
  return null;
}
