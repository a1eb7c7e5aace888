import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { SlackApi } from './slack-api.ts';
import { provider } from './slack-errors.ts';

const uploadTicket = z.object({ ok: z.literal(true), upload_url: z.url(), file_id: z.string().min(1) });

/** Checkpoint keys of the part's n-th file: its id and upload URL, and whether its bytes arrived. */
export const fileKeys = (index: number) => ({
  id: `file${String(index)}Id`,
  url: `file${String(index)}Url`,
  uploaded: `file${String(index)}Uploaded`,
});

export interface UploadedFile {
  id: string;
  title: string;
}

/**
 * Steps 1 and 2 of Slack's external upload for each of the part's files, in order:
 * files.getUploadURLExternal (filename, length in bytes, alt text), its file id and upload URL
 * checkpointed before the bytes go, then the bytes POSTed to that URL, checkpointed once the host
 * took them. A retry (after a refused completion, a lost answer, a worker that died) takes the
 * files whose bytes arrived as they are, and sends a file whose upload had no answer to the same
 * URL again: a file is invisible until completed, so neither step can show anything twice. An
 * upload URL that refuses the bytes (expired, say) is dropped, and the next attempt asks for a
 * new one.
 */
export async function uploadFiles(
  api: SlackApi,
  token: string,
  media: readonly PublishMedia[],
  checkpoint: PartCheckpoint,
): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  for (const [index, item] of media.entries()) {
    const keys = fileKeys(index);
    let id = checkpoint.values[keys.id] ?? '';
    let url = checkpoint.values[keys.url] ?? '';
    if (id !== '' && checkpoint.values[keys.uploaded] === '1') {
      files.push({ id, title: item.fileName });
      continue;
    }
    if (id === '' || url === '') {
      const form = {
        filename: item.fileName,
        length: String(item.size),
        // `alt_txt` is the name Slack's method reference gives; @slack/web-api's `alt_text` is not documented.
        ...(item.alt === null || item.alt === '' ? {} : { alt_txt: item.alt }),
      };
      const ticket = await api.call(token, 'files.getUploadURLExternal', { form }, uploadTicket);
      id = ticket.file_id;
      url = ticket.upload_url;
      await checkpoint.save({ [keys.id]: id, [keys.url]: url, [keys.uploaded]: '' });
    }
    try {
      await api.upload(url, item);
    } catch (error) {
      if (!(error instanceof PlatformError) || error.httpStatus === null || error.httpStatus >= 500) throw error;
      await checkpoint.save({ [keys.id]: '', [keys.url]: '', [keys.uploaded]: '' });
      const message = `Slack's upload server refused ${item.fileName}: ${error.message}`;
      throw new PlatformError({ kind: 'retryable', provider, message, httpStatus: error.httpStatus, cause: error });
    }
    await checkpoint.save({ [keys.uploaded]: '1' });
    files.push({ id, title: item.fileName });
  }
  return files;
}
