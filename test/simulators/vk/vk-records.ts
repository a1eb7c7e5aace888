/** What the VK simulator holds: walls with their posts and comments, photos, videos, communities. */

export interface SimulatedVkUser {
  id: number;
  firstName: string;
  lastName: string;
  screenName: string;
  /** The profile picture: `avatar` in VK ID's user_info, `photo_200` in users.get. */
  photo200: string;
  followers?: number;
}

/** A community; `managers` are the user ids that administer or edit it. */
export interface SimulatedVkGroup {
  id: number;
  name: string;
  screenName: string;
  managers: number[];
  members: number;
}

export interface VkWallPost {
  ownerId: number;
  id: number;
  fromId: number;
  text: string;
  attachments: string[];
  /** Unix seconds, as VK dates its items. */
  date: number;
  guid: string | null;
  fromGroup: boolean;
  signed: boolean;
  closeComments: boolean;
  muteNotifications: boolean;
  copyright: string | null;
  likes: number;
  reposts: number;
  views: number;
}

export interface VkWallComment {
  ownerId: number;
  postId: number;
  id: number;
  fromId: number;
  text: string;
  attachments: string[];
  date: number;
  guid: string | null;
}

export interface VkPhoto {
  ownerId: number;
  id: number;
  fileName: string;
}

export interface VkVideo {
  ownerId: number;
  id: number;
  name: string;
  /** False until the file reached the video's upload_url. */
  uploaded: boolean;
  fileName: string | null;
}

/** One upload address handed out by photos.getWallUploadServer or video.save. */
export interface VkUploadTicket {
  kind: 'photo' | 'video';
  userId: number;
  /** The wall the upload is for: the user's id, or minus the community's. */
  ownerId: number;
  videoId: number | null;
}

/** A `guid` VK remembers, and what it made with it. */
export interface VkGuidRecord {
  at: number;
  ownerId: number;
  itemId: number;
}

export class VkRecords {
  readonly posts: VkWallPost[] = [];
  readonly comments: VkWallComment[] = [];
  readonly photos: VkPhoto[] = [];
  readonly videos: VkVideo[] = [];
  readonly groups: SimulatedVkGroup[] = [];
  readonly tickets = new Map<string, VkUploadTicket>();
  /** Photo uploads waiting for photos.saveWallPhoto, by their hash. */
  readonly pendingPhotos = new Map<string, { ticket: VkUploadTicket; server: number; fileName: string }>();
  /** `{author}:{method}:{guid}` → what the first call made. */
  readonly guids = new Map<string, VkGuidRecord>();
  #nextId = 456239017;

  nextId(): number {
    this.#nextId += 1;
    return this.#nextId;
  }

  group(id: number): SimulatedVkGroup | undefined {
    return this.groups.find((candidate) => candidate.id === id);
  }

  post(ownerId: number, id: number): VkWallPost | undefined {
    return this.posts.find((candidate) => candidate.ownerId === ownerId && candidate.id === id);
  }

  /** Whether `userId` may post on and upload to the wall of `ownerId`. */
  mayUseWall(userId: number, ownerId: number): boolean {
    if (ownerId > 0) return ownerId === userId;
    return this.group(-ownerId)?.managers.includes(userId) === true;
  }

  /** `photo{owner}_{id}` / `video{owner}_{id}` of an item that exists (and, for videos, holds its file). */
  attachmentExists(reference: string): boolean {
    const match = /^(photo|video)(-?\d+)_(\d+)$/.exec(reference);
    if (match === null) return false;
    const ownerId = Number(match[2]);
    const id = Number(match[3]);
    if (match[1] === 'photo') return this.photos.some((photo) => photo.ownerId === ownerId && photo.id === id);
    return this.videos.some((video) => video.ownerId === ownerId && video.id === id && video.uploaded);
  }
}

/** A photo object with what VK always sends of one: its wall album (-14), date and tags flag. */
export function photoObject(ownerId: number, id: number, date: number): Record<string, unknown> {
  return { id, owner_id: ownerId, album_id: -14, date, has_tags: false, sizes: [] };
}

/** VK's view of an attachment reference, as wall.get and wall.getById show it; `date` is the item's. */
export function attachmentObject(reference: string, date = 0): { type: string; [key: string]: unknown } {
  const match = /^(photo|video)(-?\d+)_(\d+)$/.exec(reference);
  const type = match?.[1] ?? 'link';
  const ownerId = Number(match?.[2] ?? 0);
  const id = Number(match?.[3] ?? 0);
  return { type, [type]: type === 'photo' ? photoObject(ownerId, id, date) : { owner_id: ownerId, id } };
}

export function postObject(post: VkWallPost, commentCount: number): Record<string, unknown> {
  return {
    id: post.id,
    owner_id: post.ownerId,
    from_id: post.fromId,
    date: post.date,
    text: post.text,
    post_type: 'post',
    attachments: post.attachments.map((reference) => attachmentObject(reference, post.date)),
    comments: { count: commentCount, can_post: post.closeComments ? 0 : 1 },
    likes: { count: post.likes, user_likes: 0, can_like: 1 },
    reposts: { count: post.reposts, user_reposted: 0 },
    views: { count: post.views },
    ...(post.copyright === null ? {} : { copyright: { link: post.copyright, name: post.copyright, type: 'link' } }),
  };
}
