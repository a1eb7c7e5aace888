import type { Types } from 'mongoose';
import { removalPending } from './removal-states.ts';

/** A part's removal as stored (posts.removal). */
export interface StoredPartRemoval {
  state: string;
  method?: string | null;
  reason?: string | null;
  category?: string | null;
  message?: string | null;
  httpStatus?: number | null;
  at: Date;
}

/** A part as removal views read it. */
export interface RemovalPart {
  _id: Types.ObjectId;
  position: number;
  releaseId?: string | null;
  removal?: StoredPartRemoval | null;
}

/** One part's removal as clients read it (GET /posts/:id, DELETE answers, post.deleted). */
export interface PartRemovalView {
  partId: string;
  position: number;
  releaseId: string | null;
  state: string;
  method: string | null;
  reason: string | null;
  category: string | null;
  message: string | null;
  at: string;
}

/** A post's removal from its channel: every part, and whether the worker is done with them. */
export interface PostRemovalView {
  postId: string;
  channelId: string;
  provider: string;
  /** True once no part is queued or being removed. */
  done: boolean;
  parts: PartRemovalView[];
}

export function partRemovalView(part: RemovalPart & { removal: StoredPartRemoval }): PartRemovalView {
  const { removal } = part;
  return {
    partId: part._id.toString(),
    position: part.position,
    releaseId: part.releaseId ?? null,
    state: removal.state,
    method: removal.method ?? null,
    reason: removal.reason ?? null,
    category: removal.category ?? null,
    message: removal.message ?? null,
    at: removal.at.toISOString(),
  };
}

/** The removal of a post's parts, in thread order; null when the post was not deleted on its platform. */
export function postRemovalView(
  root: { _id: Types.ObjectId; channelId: Types.ObjectId },
  provider: string,
  parts: readonly RemovalPart[],
): PostRemovalView | null {
  const removed = parts
    .filter((part): part is RemovalPart & { removal: StoredPartRemoval } => part.removal != null)
    .sort((a, b) => a.position - b.position)
    .map(partRemovalView);
  if (removed.length === 0) return null;
  return {
    postId: root._id.toString(),
    channelId: root.channelId.toString(),
    provider,
    done: removed.every((part) => !removalPending(part.state)),
    parts: removed,
  };
}
