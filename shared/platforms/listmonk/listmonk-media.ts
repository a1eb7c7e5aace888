import { z } from 'zod';
import type { ChannelCredentials, PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { dataOf, provider, type ListmonkApi } from './listmonk-api.ts';
import type { HostedImage } from './listmonk-content.ts';

/**
 * Images go to the instance's media store (`POST /api/media`, multipart `file`), and the email
 * shows them by the URL the store gives (design-blogging-business.md 8.3). v4 and later answer
 * the stored file `{id, filename, url}`; earlier versions answer `true` and list the store at
 * `GET /api/media`. Each file gets a name of its own from the part's tag and its place
 * (`sps-<tag>-2.png`), so an upload whose answer was lost is found by name on the next attempt
 * instead of being stored twice: the attempt marks the image as sent before uploading, and an
 * attempt that finds the mark looks first.
 */

const stored = z.object({ id: z.number().int(), filename: z.string(), url: z.string().min(1) });
/** v4 and later page the store (`query` filters by name); earlier versions answer every file, newest first. */
const storeListing = z.union([
  z.array(stored),
  z.object({ results: z.array(stored) }).transform((page) => page.results),
]);
const uploadAnswer = z.union([stored, z.literal(true)]);

const extensions: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif' };

const keys = (index: number) => {
  const image = `image${String(index)}`;
  return { sent: `${image}Sent`, id: `${image}Id`, url: `${image}Url` };
};

async function findStored(api: ListmonkApi, channel: ChannelCredentials, fileName: string) {
  const answer = await api.call(channel, {
    method: 'GET', path: '/api/media', query: { query: fileName, per_page: '50' },
  });
  return dataOf(storeListing, answer, 'the media store').find((file) => file.filename === fileName) ?? null;
}

export async function hostImages(
  api: ListmonkApi,
  channel: ChannelCredentials,
  step: { media: readonly PublishMedia[]; checkpoint: PartCheckpoint; tag: string; timeoutMs: number },
): Promise<HostedImage[]> {
  const hosted: HostedImage[] = [];
  for (const [index, item] of step.media.entries()) {
    const key = keys(index);
    const alt = item.alt ?? '';
    const known = step.checkpoint.values[key.url];
    if (known !== undefined) {
      hosted.push({ url: known, alt });
      continue;
    }
    const extension = extensions[item.mimeType];
    if (item.kind !== 'image' || extension === undefined) {
      const message = `listmonk takes PNG, JPEG and GIF images only, not ${item.mimeType}`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const fileName = `${step.tag}-${String(index + 1)}.${extension}`;
    let file = step.checkpoint.values[key.sent] === undefined ? null : await findStored(api, channel, fileName);
    if (file === null) {
      await step.checkpoint.save({ [key.sent]: new Date().toISOString() });
      const answer = await api.call(channel, {
        method: 'POST',
        path: '/api/media',
        multipart: {
          fields: {},
          fileField: 'file',
          file: { ...item, fileName, open: () => item.open() },
        },
        // An upload carries the file: give it more time than a plain call.
        timeoutMs: step.timeoutMs * 4,
      });
      const uploaded = dataOf(uploadAnswer, answer, 'the uploaded image');
      file = uploaded === true ? await findStored(api, channel, fileName) : uploaded;
      if (file === null) {
        const message = `listmonk accepted ${fileName} but its media store does not list it`;
        throw new PlatformError({ kind: 'permanent', provider, message });
      }
    }
    await step.checkpoint.save({ [key.id]: String(file.id), [key.url]: file.url });
    hosted.push({ url: file.url, alt });
  }
  return hosted;
}
