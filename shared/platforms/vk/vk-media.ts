import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { VkApi } from './vk-api.ts';

const provider = 'vk';

/** Where uploads go: the user's own wall, or a community's (`group_id`). */
export interface VkUploadTarget {
  token: string;
  userId: number;
  groupId: number | null;
}

const uploadServer = z.object({ upload_url: z.url() });
const photoUploaded = z.object({ server: z.number().int(), photo: z.string(), hash: z.string() });
const savedPhotos = z.array(z.object({ id: z.number().int(), owner_id: z.number().int() })).min(1);
const videoSaved = z.object({ upload_url: z.url(), video_id: z.number().int(), owner_id: z.number().int() });
const videoUploaded = z.union([
  z.object({ error: z.string() }),
  z.object({ video_hash: z.string().optional(), size: z.number().optional() }).loose(),
]);

function wallParameter(target: VkUploadTarget): Record<string, string> {
  return target.groupId === null ? {} : { group_id: String(target.groupId) };
}

/**
 * photos.getWallUploadServer, the file to its upload_url under field `photo`, then
 * photos.saveWallPhoto with what the upload host answered; the alt text becomes the caption.
 */
async function uploadPhoto(api: VkApi, target: VkUploadTarget, media: PublishMedia): Promise<string> {
  const { token } = target;
  const server = await api.call(token, 'photos.getWallUploadServer', wallParameter(target), uploadServer);
  const file = { fields: {}, fileField: 'photo', file: media };
  const sent = await api.upload(server.upload_url, file, photoUploaded, 'a photo upload');
  // The photo host answers a file it did not take with an empty list, not with an error.
  if (sent.photo === '' || sent.photo === '[]') {
    const message = `VK did not take the photo ${media.fileName}`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  const owner: Record<string, string> = target.groupId === null
    ? { user_id: String(target.userId) }
    : { group_id: String(target.groupId) };
  const [saved] = await api.call(token, 'photos.saveWallPhoto', {
    ...owner,
    server: String(sent.server),
    photo: sent.photo,
    hash: sent.hash,
    ...(media.alt === null || media.alt === '' ? {} : { caption: media.alt }),
  }, savedPhotos);
  if (saved === undefined) throw new PlatformError({ kind: 'permanent', provider, message: 'VK saved no photo' });
  return `photo${String(saved.owner_id)}_${String(saved.id)}`;
}

/** video.save (which makes the video and names its upload_url), then the file under `video_file`. */
async function uploadVideo(api: VkApi, target: VkUploadTarget, media: PublishMedia): Promise<string> {
  const made = await api.call(target.token, 'video.save', {
    ...wallParameter(target),
    name: media.fileName,
    description: media.alt ?? '',
    // The post that carries it is SPS's own wall.post: no second post of the video alone.
    wallpost: '0',
  }, videoSaved);
  const file = { fields: {}, fileField: 'video_file', file: media };
  const sent = await api.upload(made.upload_url, file, videoUploaded, 'a video upload');
  if ('error' in sent && typeof sent.error === 'string') {
    // Another attempt asks video.save for a fresh upload address.
    const message = `VK's upload server refused the video: ${sent.error}`;
    throw new PlatformError({ kind: 'retryable', provider, message });
  }
  return `video${String(made.owner_id)}_${String(made.video_id)}`;
}

/**
 * The part's media as VK attachment references (`photo{owner}_{id}`, `video{owner}_{id}`), in
 * order. Each is checkpointed once VK holds it, so an attempt after a failure (a refused
 * wall.post, a lost answer, a worker that died) attaches what earlier attempts uploaded instead
 * of uploading the files again.
 */
export async function vkAttachments(
  api: VkApi,
  target: VkUploadTarget,
  media: readonly PublishMedia[],
  checkpoint: PartCheckpoint,
): Promise<string[]> {
  const references: string[] = [];
  for (const [index, item] of media.entries()) {
    const key = `attachment${String(index)}`;
    const held = checkpoint.values[key];
    if (held !== undefined && held !== '') {
      references.push(held);
      continue;
    }
    const reference = item.kind === 'image'
      ? await uploadPhoto(api, target, item)
      : await uploadVideo(api, target, item);
    await checkpoint.save({ [key]: reference });
    references.push(reference);
  }
  return references;
}
