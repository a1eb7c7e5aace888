import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { tellPostRemoved } from './removal-event.ts';
import type { RemovalJobRecovery } from './removal-job-presence.ts';
import { removalPending } from './removal-states.ts';
import { postRemovalView } from './removal-view.ts';

export interface RemovalRecoveryDeps {
  db: Database;
  jobs: RemovalJobRecovery;
  webhooks: WebhookEvents;
  now: () => Date;
}

export interface RemovalSweepSettings {
  /** A removal deleted more recently than this is left to its job (PUBLISH_SWEEP_GRACE_MS). */
  graceMs: number;
  batchSize: number;
  /** Times a post's removal is queued again before its pending parts are failed (PUBLISH_MAX_RECOVERIES). */
  maxRecoveries: number;
}

const givenUp = 'SPS could not finish removing it: its removal job was lost or stopped too many times';

/**
 * Queues again the removals whose job is gone (Redis lost it) or finished with parts unsettled
 * (it failed while MongoDB or Redis was away, or stalled too often). Roots are found by their
 * `removalPending` mark, one indexed equality. Each re-queue counts in `removalRecoveries`; past
 * `maxRecoveries` the pending parts are failed (`interrupted`) and post.deleted is told, so a
 * removal that keeps failing cannot loop. The job claims each part under its lock, so a job
 * queued again while a lost one still runs removes nothing twice.
 */
export async function recoverLostRemovals(
  deps: RemovalRecoveryDeps,
  settings: RemovalSweepSettings,
): Promise<{ checked: number; requeued: number; failed: number }> {
  const cutoff = deps.now().getTime() - settings.graceMs;
  const roots = await deps.db.posts.find({ removalPending: true }).limit(settings.batchSize).lean();
  let requeued = 0;
  let failed = 0;
  for (const root of roots) {
    const deletedAt = root.deletedAt ?? null;
    if (deletedAt === null || deletedAt.getTime() > cutoff || root.rootPostId !== null) continue;
    const postId = root._id.toString();
    if ((await deps.jobs.presence(postId)) === 'pending') continue;
    if (root.removalRecoveries >= settings.maxRecoveries) {
      await failPendingParts(deps, root._id, deletedAt);
      failed += 1;
      continue;
    }
    await deps.db.posts.updateOne({ _id: root._id }, { $inc: { removalRecoveries: 1 } });
    await deps.jobs.requeue({ organizationId: root.organizationId.toString(), postId });
    requeued += 1;
  }
  return { checked: roots.length, requeued, failed };
}

async function failPendingParts(
  deps: RemovalRecoveryDeps,
  rootId: Types.ObjectId,
  deletedAt: Date,
): Promise<void> {
  const [root, replies] = await Promise.all([
    deps.db.posts.findById(rootId).lean(),
    deps.db.posts.find({ rootPostId: rootId }).lean(),
  ]);
  if (root === null) return;
  const at = deps.now();
  const parts = [root, ...replies];
  const pending = parts.filter((part) => part.removal != null && removalPending(part.removal.state));
  await Promise.all(pending.map((part) =>
    deps.db.posts.updateOne({ _id: part._id }, {
      $set: {
        removal: {
          state: 'failed', method: part.removal?.method ?? null, reason: null, category: 'interrupted',
          message: givenUp, httpStatus: null, at,
        },
      },
    })));
  await deps.db.posts.updateOne({ _id: rootId }, { $set: { removalPending: false } });
  const [rootNow, repliesNow] = await Promise.all([
    deps.db.posts.findById(rootId).lean(),
    deps.db.posts.find({ rootPostId: rootId }).lean(),
  ]);
  const channel = await deps.db.channels.findById(root.channelId).lean();
  const settled = rootNow === null ? repliesNow : [rootNow, ...repliesNow];
  const view = postRemovalView(root, channel?.provider ?? 'unknown', settled);
  if (view !== null) await tellPostRemoved(deps.webhooks, root, view, deletedAt);
}
