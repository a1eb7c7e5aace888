import { createHash } from 'node:crypto';
import { z } from 'zod';
import { markdownToHtml, markdownToPlainText, normalizeMarkdown } from '../kit/content-format.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { listmonkSettings } from './definition.ts';
import { provider } from './listmonk-api.ts';

export type ListmonkSettings = z.output<typeof listmonkSettings>;
export type ContentType = NonNullable<ListmonkSettings['content_type']>;

/** An image the instance hosts, to be placed in the email by its URL. */
export interface HostedImage {
  url: string;
  alt: string;
}

/**
 * listmonk before v2 takes names and subjects of at most 200 bytes (later ones 2,000 and 5,000):
 * what SPS writes itself stays within that, so any version accepts it.
 */
const smallestLimitBytes = 200;

export function settingsOf(settings: Record<string, unknown>): ListmonkSettings {
  const parsed = listmonkSettings.safeParse(settings);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new PlatformError({ kind: 'permanent', provider, message: `listmonk settings: ${problems}` });
}

/** The text cut to whole characters within `maxBytes` of UTF-8, marked with an ellipsis when cut. */
function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let kept = '';
  for (const character of text) {
    if (Buffer.byteLength(`${kept}${character}…`, 'utf8') > maxBytes) break;
    kept += character;
  }
  return `${kept.trimEnd()}…`;
}

/**
 * The subject: the settings' own, else the post's first line as plain text (a Markdown heading
 * reads as its words), since a newsletter's first line is usually its title. The body keeps that
 * line: a subject is not a heading, and emails show both.
 */
export function subjectOf(settings: ListmonkSettings, content: string): string {
  if (settings.subject !== undefined) return settings.subject;
  const firstLine = markdownToPlainText(content).split('\n').map((line) => line.trim()).find((line) => line !== '');
  if (firstLine === undefined) {
    const message = 'listmonk: a campaign needs a subject: set subject, or start the post with a line of text';
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  return cutToBytes(firstLine, smallestLimitBytes);
}

/**
 * The part's mark in the campaign's name, from its idempotency key: every attempt at a part
 * derives the same one, and listmonk's campaign search (`query`, a substring match on name and
 * subject) finds it.
 */
export function partTag(idempotencyKey: string): string {
  return `sps-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 12)}`;
}

/** The campaign's name in listmonk's admin: the settings' name or the subject, then the part's tag. */
export function campaignName(settings: ListmonkSettings, subject: string, tag: string): string {
  const label = ` [${tag}]`;
  return `${cutToBytes(settings.name ?? subject, smallestLimitBytes - Buffer.byteLength(label))}${label}`;
}

/** Markdown's image: brackets and backslashes in the alt text escaped, the URL's parentheses and spaces encoded. */
function imageMarkdown(image: HostedImage): string {
  const alt = image.alt.replace(/\s+/g, ' ').trim().replace(/[[\]\\]/g, '\\$&');
  const url = image.url.replace(/[()\s]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `![${alt}](${url})`;
}

export interface CampaignBody {
  content_type: ContentType;
  body: string;
  altbody?: string;
}

/**
 * The email's body in the campaign's content type: HTML (richtext, listmonk's default, or html)
 * rendered from the Markdown and sanitized; Markdown as written (listmonk renders it); plain text
 * for plain. Images follow the text, by the URL the instance hosts them at. HTML emails get a
 * plain-text alternative unless the settings give one.
 */
export function campaignBody(
  settings: ListmonkSettings,
  content: string,
  images: readonly HostedImage[],
): CampaignBody {
  const contentType = settings.content_type ?? 'richtext';
  const withImages = [content.trimEnd(), ...images.map(imageMarkdown)].filter((piece) => piece !== '').join('\n\n');
  const plain = [markdownToPlainText(content), ...images.map((image) => image.url)]
    .filter((piece) => piece !== '').join('\n\n');
  if (contentType === 'plain') return { content_type: contentType, body: plain };
  if (contentType === 'markdown') {
    return { content_type: contentType, body: normalizeMarkdown(withImages), altbody: settings.altbody ?? plain };
  }
  return { content_type: contentType, body: markdownToHtml(withImages), altbody: settings.altbody ?? plain };
}
