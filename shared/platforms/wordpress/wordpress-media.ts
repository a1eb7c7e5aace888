import path from 'node:path';
import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type WordpressRest, type WordpressSession } from './wordpress-rest.ts';

/**
 * Media go to the site's media library (design-blogging-business.md 6.3): `POST /wp/v2/media`
 * with the file as the raw body, its type as Content-Type and its name in Content-Disposition,
 * alt text as a query argument; the answer is the attachment `{id, source_url}`. The size cap
 * is the site's own (PHP's upload_max_filesize); WordPress refuses a larger file with its
 * rest_upload_* message, which reaches the user as it is.
 */

const attachment = z.object({ id: z.number().int(), source_url: z.string() });

export interface LibraryMedia {
  media: PublishMedia;
  id: number;
  url: string;
}

/** WordPress checks the type by the file's extension: a name without one gets the type's. */
const extensions: Record<string, string> = {
  'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'image/webp': '.webp',
  'video/mp4': '.mp4', 'video/quicktime': '.mov', 'video/webm': '.webm',
};

/** A name Content-Disposition carries as it is: ASCII letters, digits, dots, dashes and underscores. */
export function uploadFileName(media: PublishMedia): string {
  const parsed = path.parse(media.fileName);
  // Accents come off their letters (NFKD, then the marks dropped) before anything else becomes a dash.
  const ascii = parsed.name.normalize('NFKD').replace(/\p{M}+/gu, '');
  const stem = ascii.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|(?<!-)-+$/g, '') || 'media';
  const extension = /^\.[A-Za-z0-9]{1,5}$/.test(parsed.ext)
    ? parsed.ext.toLowerCase()
    : extensions[media.mimeType] ?? '';
  return `${stem}${extension}`;
}

/** Uploads are slower than API calls: a second more per megabyte on top of the usual wait. */
const uploadTimeoutMs = (base: number, size: number): number => base + Math.ceil(size / 1_000_000) * 1_000;

/**
 * Each file of the part in the library once: its attachment id and address are checkpointed as
 * soon as the site answers, so a retry of the part reuses them instead of uploading again.
 */
export async function uploadPartMedia(
  rest: WordpressRest,
  session: WordpressSession,
  media: readonly PublishMedia[],
  checkpoint: PartCheckpoint,
  timeoutMs: number,
): Promise<LibraryMedia[]> {
  const uploaded: LibraryMedia[] = [];
  for (const [index, item] of media.entries()) {
    const idKey = `media${String(index)}Id`;
    const urlKey = `media${String(index)}Url`;
    const savedId = Number(checkpoint.values[idKey]);
    const savedUrl = checkpoint.values[urlKey];
    if (Number.isInteger(savedId) && savedId > 0 && savedUrl !== undefined) {
      uploaded.push({ media: item, id: savedId, url: savedUrl });
      continue;
    }
    // The body is streamed once: the REST address must be known before it is sent.
    await rest.discover(session);
    const answer = attachment.safeParse(await rest.call(session, {
      method: 'POST',
      route: '/wp/v2/media',
      query: item.alt === null || item.alt === '' ? {} : { alt_text: item.alt },
      headers: { 'Content-Disposition': `attachment; filename="${uploadFileName(item)}"` },
      bytes: { data: await item.open(), contentType: item.mimeType, length: item.size },
      timeoutMs: uploadTimeoutMs(timeoutMs, item.size),
    }));
    if (!answer.success) {
      const message = `WordPress stored ${item.fileName} but answered without an attachment id SPS could read`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    await checkpoint.save({ [idKey]: String(answer.data.id), [urlKey]: answer.data.source_url });
    uploaded.push({ media: item, id: answer.data.id, url: answer.data.source_url });
  }
  return uploaded;
}

/** One ASCII character as a URL's percent escape (encodeURIComponent leaves parentheses as they are). */
const percent = (character: string): string =>
  `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Markdown takes no `[`, `]` or `\` unescaped inside an image's alt text. */
const altText = (text: string): string => text.replace(/[[\]\\]/g, '').replace(/\s+/g, ' ').trim();

/**
 * Media shown after the text: images as Markdown images (converted with the text by the kit's
 * converter), videos as WordPress's own [video] shortcode, which core renders as a player.
 */
export function mediaAfterText(shown: readonly LibraryMedia[]): { markdown: string; shortcodes: string } {
  const images = shown.filter(({ media }) => media.kind === 'image');
  const videos = shown.filter(({ media }) => media.kind === 'video');
  return {
    // A space or parenthesis would end a Markdown link's address early: they go percent-encoded.
    markdown: images
      .map(({ media, url }) => `![${altText(media.alt ?? '')}](${url.replace(/[\s()<>]/g, percent)})`)
      .join('\n\n'),
    // A quote, bracket or space would end the shortcode's attribute early: they go percent-encoded.
    shortcodes: videos.map(({ url }) => `[video src="${url.replace(/["[\]\s]/g, percent)}"]`).join('\n\n'),
  };
}
