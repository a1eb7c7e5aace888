import { randomBytes } from 'node:crypto';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { integerParameter, multipartFields, vkAnswer, vkError, vkErrorText } from './vk-api-answers.ts';
import { photoObject, type SimulatedVkUser, type VkRecords, type VkUploadTicket } from './vk-records.ts';

/**
 * VK's two upload flows (dev.vk.com "Uploading files"): a method hands out an `upload_url` on
 * an upload host, the file goes there as multipart/form-data, and (for photos) a second method
 * saves what the upload host answered. Photos: photos.getWallUploadServer → field `photo` →
 * photos.saveWallPhoto(server, photo, hash). Videos: video.save → field `video_file`; the video
 * exists from video.save on, and is attachable once its file has arrived.
 */
export class VkMediaMethods {
  readonly #records: VkRecords;
  readonly #origin: () => string;

  constructor(records: VkRecords, origin: () => string) {
    this.#records = records;
    this.#origin = origin;
  }

  /** The wall an upload is for: `group_id` names a community the user manages, else the user's own. */
  #uploadOwner(user: SimulatedVkUser, parameters: URLSearchParams, method: string): number | SimulatedAnswer {
    const groupId = integerParameter(parameters, 'group_id');
    if (groupId === null) return user.id;
    if (groupId <= 0) return vkError(100, `${vkErrorText.invalidParameter}: group_id is invalid`, method);
    if (!this.#records.mayUseWall(user.id, -groupId)) return vkError(15, vkErrorText.accessDenied, method);
    return -groupId;
  }

  #ticket(ticket: VkUploadTicket): string {
    const key = randomBytes(12).toString('hex');
    this.#records.tickets.set(key, ticket);
    return `${this.#origin()}/upload/${ticket.kind}/${key}`;
  }

  getWallUploadServer(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const method = 'photos.getWallUploadServer';
    const owner = this.#uploadOwner(user, parameters, method);
    if (typeof owner !== 'number') return owner;
    const url = this.#ticket({ kind: 'photo', userId: user.id, ownerId: owner, videoId: null });
    return vkAnswer({ upload_url: url, album_id: -14, user_id: user.id });
  }

  saveWallPhoto(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const method = 'photos.saveWallPhoto';
    const hash = parameters.get('hash') ?? '';
    const pending = this.#records.pendingPhotos.get(hash);
    const server = integerParameter(parameters, 'server');
    const photo = parameters.get('photo') ?? '';
    if (pending === undefined || pending.server !== server || photo === '' || photo === '[]') {
      return vkError(100, `${vkErrorText.invalidParameter}: photo or hash is invalid`, method);
    }
    const groupId = integerParameter(parameters, 'group_id');
    const ownerId = groupId === null ? user.id : -groupId;
    if (pending.ticket.userId !== user.id || pending.ticket.ownerId !== ownerId) {
      return vkError(100, `${vkErrorText.invalidParameter}: the photo was uploaded for another wall`, method);
    }
    this.#records.pendingPhotos.delete(hash);
    const saved = { ownerId, id: this.#records.nextId(), fileName: pending.fileName };
    this.#records.photos.push(saved);
    return vkAnswer([photoObject(saved.ownerId, saved.id, Math.floor(Date.now() / 1000))]);
  }

  videoSave(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const owner = this.#uploadOwner(user, parameters, 'video.save');
    if (typeof owner !== 'number') return owner;
    const name = parameters.get('name') ?? '';
    const video = { ownerId: owner, id: this.#records.nextId(), name, uploaded: false, fileName: null };
    this.#records.videos.push(video);
    const url = this.#ticket({ kind: 'video', userId: user.id, ownerId: owner, videoId: video.id });
    return vkAnswer({
      upload_url: url,
      video_id: video.id,
      owner_id: video.ownerId,
      title: video.name,
      access_key: randomBytes(8).toString('hex'),
    });
  }

  /** `POST /upload/{photo|video}/{key}`: the upload host, which answers plain JSON (no `response`). */
  upload(request: SimulatedRequest, kind: string, key: string): SimulatedAnswer {
    const ticket = this.#records.tickets.get(key);
    if (request.method !== 'POST' || ticket === undefined || ticket.kind !== kind) {
      return { status: 200, body: { error: 'ERR_UPLOAD_BAD_URL: the upload address is unknown or expired' } };
    }
    const field = kind === 'photo' ? 'photo' : 'video_file';
    const file = multipartFields(request).find((part) => part.name === field && part.fileName !== null);
    if (kind === 'photo') {
      // VK's photo host answers an upload without the `photo` field with an empty list, not an error.
      if (file === undefined) return { status: 200, body: { server: 0, photo: '[]', hash: '' } };
      this.#records.tickets.delete(key);
      const server = 848_000 + Math.floor(Math.random() * 1000);
      const hash = randomBytes(16).toString('hex');
      this.#records.pendingPhotos.set(hash, { ticket, server, fileName: file.fileName ?? '' });
      const photo = JSON.stringify([{ photo: randomBytes(6).toString('hex'), sizes: [] }]);
      return { status: 200, body: { server, photo, hash } };
    }
    if (file === undefined) return { status: 200, body: { error: 'ERR_UPLOAD_NO_FILE: no video_file in the request' } };
    this.#records.tickets.delete(key);
    const video = this.#records.videos.find((candidate) => candidate.id === ticket.videoId);
    if (video === undefined) return { status: 200, body: { error: 'ERR_UPLOAD_BAD_URL: the video is gone' } };
    video.uploaded = true;
    video.fileName = file.fileName;
    return {
      status: 200,
      body: {
        size: request.text.length, owner_id: video.ownerId, video_id: video.id,
        video_hash: randomBytes(8).toString('hex'),
      },
    };
  }
}
