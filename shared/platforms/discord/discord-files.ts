import type { PublishMedia } from '../kit/platform-adapter.ts';
import type { DiscordBody } from './discord-api.ts';
import { refused } from './discord-errors.ts';
import { discordFileLimitBytes, discordMessageLimitBytes, mebibytes } from './definition.ts';

/** Longest alt text Discord keeps on an attachment (`description`). */
const maxDescription = 1024;

/**
 * The file as Discord should name it: `SPOILER_` in front hides it behind a spoiler until a reader
 * clicks. The bytes are the library's, opened only when the request reaches them.
 */
function named(media: PublishMedia, spoiler: boolean): PublishMedia {
  const fileName = spoiler && !media.fileName.startsWith('SPOILER_') ? `SPOILER_${media.fileName}` : media.fileName;
  return {
    kind: media.kind,
    mimeType: media.mimeType,
    size: media.size,
    fileName,
    alt: media.alt,
    url: media.url,
    open: () => media.open(),
  };
}

/**
 * Refuses, before anything is sent, files Discord would refuse: POST /posts already holds every
 * file to 10 MiB, but a file imported by URL may only have had its size known since.
 */
function checkSizes(media: PublishMedia[]): void {
  const large = media.find((item) => item.size > discordFileLimitBytes);
  if (large !== undefined) {
    throw refused(`${large.fileName} is ${mebibytes(large.size)}; Discord takes files up to `
      + `${mebibytes(discordFileLimitBytes)} from a bot in any server`);
  }
  const total = media.reduce((sum, item) => sum + item.size, 0);
  if (total > discordMessageLimitBytes) {
    throw refused(`the files of this part add up to ${mebibytes(total)}; Discord takes at most `
      + `${mebibytes(discordMessageLimitBytes)} in one message`);
  }
}

/**
 * A message body as Discord takes it: JSON alone, or with files multipart/form-data whose
 * `payload_json` holds the JSON and whose `files[n]` hold the files, streamed from storage; the
 * JSON's `attachments` (`{id: n, filename, description}`) describe them. `attachmentsAt: 'message'`
 * puts the attachments in the nested message of a forum post.
 */
export function messageBody(
  payload: Record<string, unknown>,
  media: PublishMedia[],
  spoiler: boolean,
  attachmentsAt?: 'message',
): DiscordBody {
  const files = media.map((item, index) => ({ field: `files[${String(index)}]`, file: named(item, spoiler) }));
  const [first, ...more] = files;
  if (first === undefined) return { json: payload };
  checkSizes(media);
  const attachments = files.map(({ file }, index) => ({
    id: index,
    filename: file.fileName,
    ...(file.alt === null || file.alt === ''
      ? {}
      : { description: Array.from(file.alt).slice(0, maxDescription).join('') }),
  }));
  const nested = payload[attachmentsAt ?? ''];
  const json = attachmentsAt === undefined
    ? { ...payload, attachments }
    : { ...payload, [attachmentsAt]: { ...(typeof nested === 'object' ? nested : {}), attachments } };
  return {
    multipart: {
      fields: { payload_json: JSON.stringify(json) }, fileField: first.field, file: first.file, moreFiles: more,
    },
  };
}
