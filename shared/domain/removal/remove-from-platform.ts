import type { Types } from 'mongoose';
import { unavailableBackingService } from '../../backing-service-errors.ts';
import type { Database } from '../../db/database.ts';
import { asObjectId } from '../../db/object-id.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { findPlatformModule, type AdapterSet } from '../../platforms/platforms.ts';
import type { ChannelTokens, StoredChannel } from '../channels/channel-tokens.ts';
import { failureCategoryOf } from '../publishing/failure-category.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { tellPostRemoved } from './removal-event.ts';
import { removalPending } from './removal-states.ts';
import { postRemovalView, type RemovalPart, type StoredPartRemoval } from './removal-view.ts';

/**
 * Runs `work` while no other process works on the same part, or throws (the job is then retried
 * later). A Redis lock, not the conditional update alone: FerretDB does not make a conditional
 * update atomic (docs/ARCHITECTURE.md, "Atomic steps on FerretDB").
 */
export type PartExclusion = <T>(partId: string, work: () => Promise<T>) => Promise<T>;

export interface RemovalWorkDeps {
  db: Database;
  adapters: AdapterSet;
  tokens: Pick<ChannelTokens, 'run'>;
  webhooks: WebhookEvents;
  now: () => Date;
  exclusive: PartExclusion;
}

export type RemovalOutcome = 'done' | 'nothing_to_remove';

type PendingPart = RemovalPart & { releaseId: string; removal: StoredPartRemoval };

/** Where removing a part stops when there is no platform call to make. */
class RemovalImpossible extends Error {
  readonly category: string;
  constructor(category: string, message: string) {
    super(message);
    this.name = 'RemovalImpossible';
    this.category = category;
  }
}

/**
 * Takes a deleted post's queued parts off the platform, replies first (the last part first), each
 * one at most once: a part is claimed under its lock, read again, and called only while still
 * pending, so a job run twice (duplicated, retried, two workers) removes each part once. A
 * retryable failure puts the part back to queued and throws for the queue's backoff, unless
 * `finalAttempt`, when it is settled as failed like any other failure. Once every part is
 * settled, post.deleted is told with each part's outcome.
 */
export async function removeFromPlatform(
  deps: RemovalWorkDeps,
  job: { organizationId: string; postId: string },
  finalAttempt: boolean,
): Promise<RemovalOutcome> {
  const rootId = asObjectId(job.postId);
  const organizationId = asObjectId(job.organizationId);
  const root = rootId === null || organizationId === null
    ? null
    : await deps.db.posts.findOne({ _id: rootId, organizationId, rootPostId: null }).lean();
  const deletedAt = root?.deletedAt ?? null;
  if (root === null || root.removal == null || deletedAt === null) return 'nothing_to_remove';
  const [replies, channel] = await Promise.all([
    deps.db.posts.find({ rootPostId: root._id }).lean(),
    deps.db.channels.findById(root.channelId).lean(),
  ]);
  const lastFirst = [root, ...replies]
    .filter((part): part is typeof part & PendingPart =>
      part.removal != null && removalPending(part.removal.state) && part.releaseId !== null)
    .sort((a, b) => b.position - a.position);
  const declared = channel === null ? undefined : findPlatformModule(channel.provider)?.removal;
  const firstTakesTheRest = declared?.supported === true && declared.laterPartsGoWithFirst === true;
  const called = firstTakesTheRest ? lastFirst.filter((part) => part._id.equals(root._id)) : lastFirst;
  for (const part of called) {
    await deps.exclusive(part._id.toHexString(), () => removePart(deps, channel, part._id, finalAttempt));
  }
  if (firstTakesTheRest) {
    await settleWithFirst(deps, root._id, lastFirst.filter((part) => !part._id.equals(root._id)));
  }
  const [rootNow, repliesNow] = await Promise.all([
    deps.db.posts.findById(root._id).lean(),
    deps.db.posts.find({ rootPostId: root._id }).lean(),
  ]);
  const settled = rootNow === null ? repliesNow : [rootNow, ...repliesNow];
  const view = postRemovalView(root, channel?.provider ?? 'unknown', settled);
  if (view?.done !== true) return 'done';
  await deps.db.posts.updateOne({ _id: root._id }, { $set: { removalPending: false } });
  await tellPostRemoved(deps.webhooks, root, view, deletedAt);
  return 'done';
}

/**
 * Later parts the platform took down with the first (its comments): each settles as the first
 * did, removed, or failed with the first's reason, since a comment stays up while its post does.
 * Nothing is written while the first is still pending (its job will come back).
 */
async function settleWithFirst(
  deps: RemovalWorkDeps,
  rootId: Types.ObjectId,
  later: readonly PendingPart[],
): Promise<void> {
  const first = (await deps.db.posts.findById(rootId).lean())?.removal;
  if (first == null || removalPending(first.state) || later.length === 0) return;
  const outcome = first.state === 'removed'
    ? { state: 'removed', reason: 'removed with the first part' }
    : {
      state: 'failed', reason: 'it stays up with the first part, which the platform did not remove',
      category: first.category ?? null, message: first.message ?? null, httpStatus: first.httpStatus ?? null,
    };
  for (const part of later) {
    await deps.db.posts.updateOne({ _id: part._id, 'removal.state': part.removal.state }, {
      $set: {
        removal: {
          method: part.removal.method ?? null, category: null, message: null, httpStatus: null,
          ...outcome, at: deps.now(),
        },
      },
    });
  }
}

async function removePart(
  deps: RemovalWorkDeps,
  channel: StoredChannel | null,
  partId: Types.ObjectId,
  finalAttempt: boolean,
): Promise<void> {
  const current = await deps.db.posts.findById(partId).lean();
  const claimedState = current?.removal?.state;
  const releaseId = current?.releaseId ?? null;
  if (current === null || claimedState === undefined || !removalPending(claimedState) || releaseId === null) return;
  const write = (removal: Partial<StoredPartRemoval> & { state: string }) =>
    deps.db.posts.updateOne({ _id: partId }, {
      $set: {
        removal: {
          method: current.removal?.method ?? null, reason: null, category: null, message: null, httpStatus: null,
          ...removal, at: deps.now(),
        },
      },
    });
  const claimed = await deps.db.posts.updateOne(
    { _id: partId, 'removal.state': claimedState },
    { $set: { 'removal.state': 'removing', 'removal.at': deps.now() } },
  );
  if (claimed.modifiedCount !== 1) return;
  try {
    const adapter = channel === null ? undefined : deps.adapters.get(channel.provider);
    if (channel === null || channel.deletedAt !== null) {
      throw new RemovalImpossible('disconnected', 'the channel was removed from SPS, which can no longer act for it');
    }
    if (adapter?.remove === undefined) {
      throw new RemovalImpossible('permanent', `SPS does not remove items from ${channel.provider}`);
    }
    const { remove } = adapter;
    const settings = (current.settings ?? {}) as Record<string, unknown>;
    await deps.tokens.run(channel, (credentials) => remove(credentials, { releaseId, settings }));
    await write({ state: 'removed' });
  } catch (error) {
    if (error instanceof RemovalImpossible) {
      await write({ state: 'failed', category: error.category, message: error.message });
      return;
    }
    if (!(error instanceof Error)) throw error;
    const failure = {
      category: failureCategoryOf(error),
      message: error.message,
      httpStatus: error instanceof PlatformError ? error.httpStatus : null,
    };
    // As publishing: the platform's retryable kind, or MongoDB or Redis away; anything else would fail again.
    const again = error instanceof PlatformError
      ? error.kind === 'retryable'
      : unavailableBackingService(error) !== null;
    if (again && !finalAttempt) {
      // The last error stays readable while the queue waits to try again.
      await write({ state: 'queued', ...failure });
      throw error;
    }
    await write({ state: 'failed', ...failure });
  }
}
