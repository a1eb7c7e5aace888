import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { flagParameter, integerParameter, vkAnswer, vkError, vkErrorText } from './vk-api-answers.ts';
import {
  attachmentObject, postObject, type SimulatedVkUser, type VkRecords, type VkWallComment, type VkWallPost,
} from './vk-records.ts';

/** wall.post's `guid` stops a repeated send of the same post "for one hour" (dev.vk.com, wall.post). */
export const guidWindowMs = 60 * 60 * 1000;
const maxAttachments = 10;

/**
 * What VK does with a `guid` it has seen within the hour. The documentation says only that the
 * post is not sent again; 'earlier-item' answers with what the first call made (the simulator's
 * default), 'refuse' with an error that names no item, so both of a client's paths can be tested.
 */
export type GuidRepeatAnswer = 'earlier-item' | 'refuse';

/**
 * The wall methods: wall.post, wall.createComment, wall.get, wall.getById, wall.getComments,
 * wall.delete, wall.deleteComment.
 */
export class VkWallMethods {
  readonly #records: VkRecords;
  readonly #now: () => number;
  guidRepeat: GuidRepeatAnswer = 'earlier-item';

  constructor(records: VkRecords, now: () => number) {
    this.#records = records;
    this.#now = now;
  }

  /** A comma list of `photo{owner}_{id}` / `video{owner}_{id}`, each existing; or the refusal. */
  #attachments(parameters: URLSearchParams, method: string): string[] | SimulatedAnswer {
    const raw = parameters.get('attachments') ?? '';
    const list = raw === '' ? [] : raw.split(',');
    if (list.length > maxAttachments) {
      return vkError(100, `${vkErrorText.invalidParameter}: too many attachments (at most ${maxAttachments})`, method);
    }
    const unknown = list.find((reference) => !this.#records.attachmentExists(reference));
    if (unknown !== undefined) {
      return vkError(100, `${vkErrorText.invalidParameter}: attachments: ${unknown} is not found`, method);
    }
    return list;
  }

  /** An item made with this guid within the hour, or null (a guid older than the hour is forgotten). */
  #repeated(key: string): { ownerId: number; itemId: number } | null {
    const seen = this.#records.guids.get(key);
    if (seen === undefined || this.#now() - seen.at >= guidWindowMs) return null;
    return seen;
  }

  post(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const method = 'wall.post';
    const ownerId = integerParameter(parameters, 'owner_id') ?? user.id;
    if (!this.#records.mayUseWall(user.id, ownerId)) return vkError(214, vkErrorText.addPostDenied, method);
    const attachments = this.#attachments(parameters, method);
    if (!Array.isArray(attachments)) return attachments;
    const text = parameters.get('message') ?? '';
    if (text === '' && attachments.length === 0) {
      return vkError(100, `${vkErrorText.invalidParameter}: message is empty or invalid`, method);
    }
    const guid = parameters.get('guid');
    const guidKey = `${String(user.id)}:${method}:${guid ?? ''}`;
    if (guid !== null && guid !== '') {
      const earlier = this.#repeated(guidKey);
      if (earlier !== null) {
        if (this.guidRepeat === 'refuse') {
          return vkError(100, `${vkErrorText.invalidParameter}: this post was already published (guid)`, method);
        }
        return vkAnswer({ post_id: earlier.itemId });
      }
    }
    const fromGroup = ownerId < 0 && flagParameter(parameters, 'from_group');
    const post: VkWallPost = {
      ownerId,
      id: this.#records.nextId(),
      fromId: fromGroup ? ownerId : user.id,
      text,
      attachments,
      date: Math.floor(this.#now() / 1000),
      guid,
      fromGroup,
      signed: fromGroup && flagParameter(parameters, 'signed'),
      closeComments: flagParameter(parameters, 'close_comments'),
      muteNotifications: flagParameter(parameters, 'mute_notifications'),
      copyright: parameters.get('copyright'),
      likes: 0,
      reposts: 0,
      views: 0,
    };
    this.#records.posts.push(post);
    if (guid !== null && guid !== '') this.#records.guids.set(guidKey, { at: this.#now(), ownerId, itemId: post.id });
    return vkAnswer({ post_id: post.id });
  }

  /**
   * wall.delete and wall.deleteComment on a wall the user may use: `1` once the item is gone; an
   * unknown one is error 104 "Not found"; another wall's, 210 / 211 (access to the post or comment denied).
   */
  remove(
    user: SimulatedVkUser,
    parameters: URLSearchParams,
    method: 'wall.delete' | 'wall.deleteComment',
  ): SimulatedAnswer {
    const ownerId = integerParameter(parameters, 'owner_id') ?? user.id;
    const comment = method === 'wall.deleteComment';
    if (!this.#records.mayUseWall(user.id, ownerId)) {
      return comment ? vkError(211, 'Access to wall\'s comment denied', method)
        : vkError(210, 'Access to wall\'s post denied', method);
    }
    const id = integerParameter(parameters, comment ? 'comment_id' : 'post_id');
    const items: { ownerId: number; id: number }[] = comment ? this.#records.comments : this.#records.posts;
    const index = items.findIndex((item) => item.ownerId === ownerId && item.id === id);
    if (index < 0) return vkError(104, 'Not found', method);
    items.splice(index, 1);
    return vkAnswer(1);
  }

  createComment(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const method = 'wall.createComment';
    const ownerId = integerParameter(parameters, 'owner_id') ?? user.id;
    const postId = integerParameter(parameters, 'post_id');
    if (postId === null) {
      return vkError(100, `${vkErrorText.invalidParameter}: post_id is a required parameter`, method);
    }
    const post = this.#records.post(ownerId, postId);
    if (post === undefined) return vkError(100, `${vkErrorText.invalidParameter}: post not found`, method);
    if (post.closeComments) return vkError(213, 'Access to status replies denied', method);
    const attachments = this.#attachments(parameters, method);
    if (!Array.isArray(attachments)) return attachments;
    const text = parameters.get('message') ?? '';
    if (text === '' && attachments.length === 0) {
      return vkError(100, `${vkErrorText.invalidParameter}: message is empty or invalid`, method);
    }
    const fromGroup = integerParameter(parameters, 'from_group');
    if (fromGroup !== null && fromGroup !== 0 && !this.#records.mayUseWall(user.id, -fromGroup)) {
      return vkError(15, vkErrorText.accessDenied, method);
    }
    const guid = parameters.get('guid');
    const guidKey = `${String(user.id)}:${method}:${guid ?? ''}`;
    if (guid !== null && guid !== '') {
      const earlier = this.#repeated(guidKey);
      if (earlier !== null) {
        if (this.guidRepeat === 'refuse') {
          return vkError(100, `${vkErrorText.invalidParameter}: this comment was already published (guid)`, method);
        }
        return vkAnswer({ comment_id: earlier.itemId, parents_stack: [] });
      }
    }
    const comment: VkWallComment = {
      ownerId,
      postId,
      id: this.#records.nextId(),
      fromId: fromGroup !== null && fromGroup !== 0 ? -fromGroup : user.id,
      text,
      attachments,
      date: Math.floor(this.#now() / 1000),
      guid,
    };
    this.#records.comments.push(comment);
    if (guid !== null && guid !== '') {
      this.#records.guids.set(guidKey, { at: this.#now(), ownerId, itemId: comment.id });
    }
    return vkAnswer({ comment_id: comment.id, parents_stack: [] });
  }

  #commentCount(post: VkWallPost): number {
    return this.#records.comments.filter((item) => item.ownerId === post.ownerId && item.postId === post.id).length;
  }

  get(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const ownerId = integerParameter(parameters, 'owner_id') ?? user.id;
    const count = Math.min(integerParameter(parameters, 'count') ?? 20, 100);
    const offset = integerParameter(parameters, 'offset') ?? 0;
    const wall = this.#records.posts.filter((post) => post.ownerId === ownerId).reverse();
    const items = wall.slice(offset, offset + count).map((post) => postObject(post, this.#commentCount(post)));
    return vkAnswer({ count: wall.length, items });
  }

  getById(_user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const wanted = (parameters.get('posts') ?? '').split(',').filter((entry) => entry !== '');
    if (wanted.length === 0) {
      return vkError(100, `${vkErrorText.invalidParameter}: posts is a required parameter`, 'wall.getById');
    }
    const items = wanted.flatMap((entry) => {
      const match = /^(-?\d+)_(\d+)$/.exec(entry);
      const post = match === null ? undefined : this.#records.post(Number(match[1]), Number(match[2]));
      return post === undefined ? [] : [postObject(post, this.#commentCount(post))];
    });
    return vkAnswer({ items });
  }

  getComments(user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer {
    const method = 'wall.getComments';
    const ownerId = integerParameter(parameters, 'owner_id') ?? user.id;
    const postId = integerParameter(parameters, 'post_id');
    if (postId === null || this.#records.post(ownerId, postId) === undefined) {
      return vkError(100, `${vkErrorText.invalidParameter}: post not found`, method);
    }
    const count = Math.min(integerParameter(parameters, 'count') ?? 10, 100);
    const all = this.#records.comments.filter((item) => item.ownerId === ownerId && item.postId === postId);
    const ordered = parameters.get('sort') === 'desc' ? [...all].reverse() : all;
    const items = ordered.slice(0, count).map((comment) => ({
      id: comment.id,
      from_id: comment.fromId,
      post_id: comment.postId,
      owner_id: comment.ownerId,
      date: comment.date,
      text: comment.text,
      attachments: comment.attachments.map((reference) => attachmentObject(reference, comment.date)),
    }));
    return vkAnswer({ count: all.length, items, current_level_count: all.length, can_post: true });
  }
}
