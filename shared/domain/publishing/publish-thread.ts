import { Types } from 'mongoose';
import { threadFilters, updateThread } from '../../db/equality-queries.ts';
import { derivedObjectId } from '../../db/derived-object-id.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import type { PartCheckpoint, PublishResult } from '../../platforms/kit/platform-adapter.ts';
import { platformDisplayName } from '../../platforms/platforms.ts';
import type { StoredChannel } from '../channels/channel-tokens.ts';
import { notify } from '../notifications/notifications.ts';
import { missingReleaseId } from '../posts/missing-release-id.ts';
import { makeNextOccurrence } from '../posts/recurrence-series.ts';
import { assertCheckpointKeys } from '../../platforms/kit/checkpoint-keys.ts';
import type { OrganizationEndpoints } from '../webhooks/webhook-outbox.ts';
import { prepareThread, type NothingToCall, type PreparedThread, type PublishHints } from './prepare-thread.ts';
import type { PublishDeps, PublishRunDeps } from './publish-deps.ts';
import { takeCallSlot } from './take-call-slot.ts';
import { savePublishedPart, type ThreadPart } from './publish-store.ts';
import { recordFailedAttempt, recordOnFirstUnpublished, threadAttempts } from './failed-attempts.ts';
import { failureCategoryOf, failureCategoryWords } from './failure-category.ts';

const occurrenceDeps = (deps: PublishDeps) => ({ db: deps.db, now: deps.now, scheduler: deps.occurrenceScheduler });

/** The part's stored checkpoint, read once with the part and merged on every save. */
function partCheckpoint(deps: PublishDeps, partId: Types.ObjectId, stored: unknown): PartCheckpoint {
  const values: Record<string, string> = {};
  if (typeof stored === 'object' && stored !== null) {
    for (const [key, value] of Object.entries(stored)) if (typeof value === 'string') values[key] = value;
  }
  return {
    values,
    save: async (added) => {
      assertCheckpointKeys(added);
      Object.assign(values, added);
      await deps.db.posts.updateOne({ _id: partId }, { $set: { checkpoint: { ...values } } });
    },
  };
}

/**
 * A part the platform may have published without telling: it keeps release id `missing`, so the
 * user can find it with GET /posts/:id/missing and link it, and it is never sent again by itself.
 */
async function setAsideUnconfirmed(deps: PublishDeps, partId: Types.ObjectId, error: PlatformError): Promise<void> {
  await deps.db.posts.updateOne(
    { _id: partId },
    {
      $set: {
        releaseId: missingReleaseId, state: 'ERROR', error: `unconfirmed: ${error.message}`,
        failureCategory: 'unconfirmed',
      },
    },
  );
}

export type PublishOutcome =
  | {
    kind: 'published'; releaseURL: string; provider: string;
    /** What the platform refused of extra steps while publishing (PublishResult.warnings), for the log. */
    warnings: string[];
  }
  | NothingToCall;

/**
 * Endpoints read with the post serve its event only this long after: a long upload reads them
 * again, so an endpoint registered meanwhile still hears of the publication.
 */
const endpointsFreshMs = 5_000;

const fresh = (deps: PublishDeps, read: OrganizationEndpoints | null): OrganizationEndpoints | null =>
  read !== null && deps.now().getTime() - read.readAt <= endpointsFreshMs ? read : null;

/**
 * Publishes a post's parts in order. The thread is read, then the publish waits for its slot
 * among the process's platform calls (its pool, platform and account: take-call-slot.ts; read
 * again if that took long) and holds it until the platform's last answer; results are saved and
 * told of after. Each part's release id is saved as soon as the platform accepts it, so running
 * this again (a retry, a stalled job taken over by another worker) resumes after the last
 * published part instead of publishing it twice.
 */
export async function publishThread(
  deps: PublishRunDeps,
  postId: string,
  hints: PublishHints = {},
): Promise<PublishOutcome> {
  const prepared = await prepareThread(deps, postId, hints).catch(async (error: unknown) => {
    // No part was sent: the failure is the first unpublished part's (the one that could not go).
    if (error instanceof Error && Types.ObjectId.isValid(postId)) {
      await recordOnFirstUnpublished(deps.db, new Types.ObjectId(postId), error, deps.now());
    }
    throw error;
  });
  if (prepared.kind !== 'prepared') return prepared;
  const held = await takeCallSlot(deps, postId, hints, prepared);
  if (held.kind !== 'held') return held;
  let called: CalledThread | NothingToCall;
  try {
    called = await callPlatform(deps, held.prepared, held.slot.release);
  } finally {
    held.slot.release();
  }
  if (called.kind !== 'called') return called;
  await tellPublished(deps, called);
  // A recurring post's next occurrence, made once however often this runs: its id is derived.
  await makeNextOccurrence(occurrenceDeps(deps), called.root, called.publishedAt);
  return {
    kind: 'published', releaseURL: called.releaseURL, provider: called.channel.provider, warnings: called.warnings,
  };
}

/** A thread whose parts the platform has all accepted, saved: what is told of it. */
interface CalledThread {
  kind: 'called';
  root: ThreadPart;
  channel: StoredChannel;
  releaseURL: string;
  rootReleaseId: string;
  publishedAt: Date;
  /** The organization's webhook endpoints read with the post, if still fresh enough to use. */
  endpoints: OrganizationEndpoints | null;
  /**
   * The warnings of the parts this run published. Not stored: a run again after a crash between a
   * part's save and the notification tells the publication without them (they are in the log).
   */
  warnings: string[];
}

/**
 * Sends the thread's parts not yet published, in order, saving each answer; `releaseSlot` is
 * called as soon as the platform has answered the last of them, before that answer is saved.
 */
async function callPlatform(
  deps: PublishDeps,
  prepared: PreparedThread,
  releaseSlot: () => void,
): Promise<CalledThread | NothingToCall> {
  const { db } = deps;
  const { root, parts, unpublished, channel, adapter, mediaOf } = prepared;
  let releaseURL = root.releaseURL ?? '';
  let rootReleaseId = root.releaseId ?? '';
  let rootPublishedAt = root.publishedAt ?? null;
  let previous: { releaseId: string; publishedAt: Date } | null = null;
  const warnings: string[] = [];
  for (const part of parts) {
    if (part.releaseId !== null && part.releaseId !== undefined) {
      previous = { releaseId: part.releaseId, publishedAt: part.publishedAt ?? deps.now() };
      continue;
    }
    if (previous !== null && part.delayMinutes > 0) {
      const dueAt = new Date(previous.publishedAt.getTime() + part.delayMinutes * 60_000);
      if (dueAt > deps.now()) return { kind: 'waiting', until: dueAt };
    }
    const media = part.media.map(mediaOf);
    const settings = (root.settings ?? {}) as Record<string, unknown>;
    const idempotencyKey = `sps-post-${part._id.toString()}`;
    const parent = previous;
    const dueAt =
      parent === null ? root.publishDate : new Date(parent.publishedAt.getTime() + part.delayMinutes * 60_000);
    const checkpoint = partCheckpoint(deps, part._id, part.checkpoint);
    const result: PublishResult = await deps.tokens
      .run(channel, (credentials) => {
        const input = {
          channel: credentials,
          content: part.content,
          media,
          settings,
          idempotencyKey,
          dueAt,
          checkpoint,
        };
        if (parent === null) return adapter.publish(input);
        return adapter.comment({ ...input, parentReleaseId: parent.releaseId });
      })
      .catch(async (error: unknown) => {
        if (error instanceof Error) await recordFailedAttempt(db, part, error, deps.now());
        if (error instanceof PlatformError && error.kind === 'unconfirmed')
          await setAsideUnconfirmed(deps, part._id, error);
        throw error;
      });
    if (part === unpublished.at(-1)) releaseSlot();
    const publishedAt = deps.now();
    await savePublishedPart(db, part._id, result, publishedAt);
    warnings.push(...result.warnings ?? []);
    previous = { releaseId: result.releaseId, publishedAt };
    if (part.position === 0) {
      releaseURL = result.releaseURL;
      rootReleaseId = result.releaseId;
      rootPublishedAt = publishedAt;
    }
  }

  return {
    kind: 'called',
    root,
    channel,
    releaseURL,
    rootReleaseId,
    publishedAt: rootPublishedAt ?? deps.now(),
    endpoints: fresh(deps, prepared.endpoints),
    warnings,
  };
}

/**
 * Told exactly once: the notification and the event take ids derived from the publication (the
 * root and the release the platform gave it, saved before), so a run again after a crash, or a
 * second worker racing this one to the same release, writes nothing new.
 */
async function tellPublished(deps: PublishDeps, called: CalledThread): Promise<void> {
  const { root, channel, releaseURL, publishedAt, warnings } = called;
  const published = `Your post was published on ${platformDisplayName(channel.provider)} at ${releaseURL}`;
  const publication = derivedObjectId(
    root._id.getTimestamp(), 'post.published', root._id.toHexString(), called.rootReleaseId,
  );
  await Promise.all([
    notify(deps.db, root.organizationId.toString(), {
      // What the platform refused of extra steps is said with the publication, the part stays published.
      content: warnings.length === 0 ? published : `${published}. Not all went as asked: ${warnings.join('; ')}`,
      link: releaseURL === '' ? null : releaseURL,
    }, publication),
    deps.webhooks.emit(root.organizationId.toString(), 'post.published', {
      postId: root._id.toString(),
      group: root.group,
      channelId: channel._id.toString(),
      provider: channel.provider,
      releaseURL,
      publishedAt: publishedAt.toISOString(),
    }, { endpoints: called.endpoints, once: publication }),
  ]);
}

/**
 * Gives up on a post: marks the parts not yet published as failed with the platform's message,
 * flags the channel when the platform no longer accepts its credentials, and tells the
 * organization why.
 */
export async function failThread(deps: PublishDeps, postId: string, failure: Error): Promise<void> {
  const { db } = deps;
  const root = await db.posts.findOne({ _id: postId, rootPostId: null }).lean();
  if (root === null) return;
  const channel = await db.channels.findOne({ _id: root.channelId }).lean();
  const provider = channel?.provider ?? 'unknown';
  const message = failure.message;

  if (
    failure instanceof PlatformError &&
    (failure.kind === 'disconnected' || failure.kind === 'refresh_token') &&
    channel !== null
  ) {
    // Flagged once: the organization's endpoints hear of it when it changes, not on every failed post.
    const flagged = await db.channels.updateOne(
      { _id: channel._id, refreshNeeded: false },
      { $set: { refreshNeeded: true } },
    );
    // Told at once: a run of this function again (the job retried after a later write failed) finds
    // the channel flagged already and would not tell it.
    if (flagged.modifiedCount === 1) {
      await deps.webhooks.emit(root.organizationId.toString(), 'channel.disconnected', {
        channelId: channel._id.toString(), provider, name: channel.name, reason: message,
      });
    }
  }
  const category = failureCategoryOf(failure);
  const unconfirmed = category === 'unconfirmed';
  const content = unconfirmed
    ? `Your post may have been published on ${platformDisplayName(provider)}, which did not confirm it: ${message}. ` +
      'SPS did not send it again; check the account, then link the item or schedule the post again'
    : `Your post could not be published on ${platformDisplayName(provider)} (${failureCategoryWords[category]}): `
      + message;
  await notify(db, root.organizationId.toString(), { content, link: null });
  // The state last: a post in ERROR has its notification and its flagged channel. A crash before
  // this write runs the job again, which at worst tells the organization twice.
  await updateThread(db.posts, root._id, { releaseId: null }, {
    $set: { state: 'ERROR', error: message, failureCategory: category },
  });
  // The attempts as saved by the publish that failed (or by the recovery that gave up).
  const parts = await Promise.all(threadFilters(root._id).map((filter) =>
    db.posts.find({ ...filter, deletedAt: null }, { attempts: 1 }).lean()));
  // After the state it reports, so a receiver that reads the post finds it failed.
  await deps.webhooks.emit(root.organizationId.toString(), 'post.failed', {
    postId: root._id.toString(), group: root.group, channelId: root.channelId.toString(), provider, error: message,
    category, attempts: threadAttempts(parts.flat()),
  });
  // A failed occurrence does not end its series; from its date, so a run again makes the same one.
  if (root.deletedAt === null) await makeNextOccurrence(occurrenceDeps(deps), root, root.publishDate);
}
