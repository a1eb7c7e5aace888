import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { unreadable, type LemmyApi, type LemmySession } from './lemmy-api.ts';

/**
 * Media go to the instance's pict-rs (open-and-community.md 7.3): `POST /pictrs/image`, multipart
 * field `images[]`, answered `{msg: "ok", files: [{file, delete_token}]}`; the file is then at
 * `{instance}/pictrs/image/<file>`. Lemmy has no attachments: a post points at one image by its
 * `url`, and everything else is Markdown in the text. Videos go the same way; an instance whose
 * pict-rs takes no video refuses the upload, and that refusal reaches the user as it is.
 */

const uploaded = z.object({
  msg: z.string(),
  files: z.array(z.object({ file: z.string().min(1), delete_token: z.string() })).min(1),
});

/** One of the part's media with where the instance serves it. */
export interface HostedMedia {
  media: PublishMedia;
  url: string;
}

/** Uploads are slower than API calls: a second more per megabyte on top of the usual wait. */
const uploadTimeoutMs = (base: number, size: number): number => base + Math.ceil(size / 1_000_000) * 1_000;

export const imageUrl = (session: LemmySession, file: string): string =>
  `${session.instance}/pictrs/image/${encodeURIComponent(file)}`;

/**
 * Each file of the part, uploaded once: its pict-rs name is checkpointed as soon as the instance
 * answers, so a retry of the part (a later upload throttled, the post refused as throttled)
 * reuses it instead of uploading it again against the instance's image limit.
 */
export async function hostPartMedia(
  api: LemmyApi,
  session: LemmySession,
  media: readonly PublishMedia[],
  checkpoint: PartCheckpoint,
  timeoutMs: number,
): Promise<HostedMedia[]> {
  const hosted: HostedMedia[] = [];
  for (const [index, item] of media.entries()) {
    const key = `media${String(index)}File`;
    let file = checkpoint.values[key];
    if (file === undefined || file === '') {
      const answer = uploaded.safeParse(await api.call(session, {
        method: 'POST',
        path: '/pictrs/image',
        multipart: { fields: {}, fileField: 'images[]', file: item },
        bucket: 'image',
        timeoutMs: uploadTimeoutMs(timeoutMs, item.size),
      }));
      if (!answer.success) throw unreadable('an image upload');
      file = answer.data.files[0]?.file ?? '';
      await checkpoint.save({ [key]: file });
    }
    hosted.push({ media: item, url: imageUrl(session, file) });
  }
  return hosted;
}

/** Markdown takes no `]` or line break inside a link's text. */
const linkText = (text: string): string => text.replace(/[[\]\\]/g, '').replace(/\s+/g, ' ').trim();

/**
 * Images as Markdown images (Lemmy's clients show them inline, the alt text as alt); videos as
 * links, which every client opens whether or not it plays video inline.
 */
export function markdownFor(hosted: readonly HostedMedia[]): string {
  return hosted
    .map(({ media, url }) => {
      const alt = linkText(media.alt ?? '');
      return media.kind === 'image' ? `![${alt}](${url})` : `[${alt === '' ? 'Video' : alt}](${url})`;
    })
    .join('\n\n');
}

/** The part's text followed by its embedded media, as one Markdown text. */
export function withEmbeds(content: string, hosted: readonly HostedMedia[]): string {
  return [content.trimEnd(), markdownFor(hosted)].filter((piece) => piece !== '').join('\n\n');
}
