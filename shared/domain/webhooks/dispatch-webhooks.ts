import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { dateOrderedPages } from '../../db/date-ordered-pages.ts';
import { lostAttemptError } from './deliver-webhook.ts';
import type { DeliveryAttempt, WebhookDeliveryJobs } from './delivery-jobs.ts';
import { afterFailedAttempt } from './retry-schedule.ts';

export interface DispatchSettings {
  /** Deliveries read per query; a round reads as many pages as it finds deliveries to handle. */
  batchSize: number;
  /**
   * How long a pending delivery may be overdue before its job counts as lost
   * (WEBHOOK_DISPATCH_GRACE_MS): longer than a busy queue keeps a job waiting.
   */
  graceMs: number;
  retryScheduleMs: readonly number[];
}

export interface DispatchResult {
  /** Overdue deliveries queued again (a job still waiting for them makes that a no-op). */
  requeued: number;
  /** Attempts whose worker stopped (the lease ran out), counted as failed and rescheduled. */
  lost: number;
}

interface DeliveryState {
  _id: Types.ObjectId;
  attempt: number;
  leaseUntil?: Date | null;
  nextAttemptAt?: Date | null;
}

/**
 * One round of the dispatcher, the safety net under the jobs queued when deliveries are written
 * and retried: it finds only deliveries whose job was lost (a Redis that lost its data, a crash
 * between the write and the queueing, an attempt job that failed because MongoDB was away).
 * Attempts whose lease ran out are recorded as lost and their retry queued; then pending
 * deliveries overdue by the grace are queued again under their attempt's job id, which adds
 * nothing where the job still exists. Both reads are an equality on status with a range, on the
 * {status, leaseUntil} and {status, nextAttemptAt} indexes, in pages from where the last ended:
 * a round reads what it handles, not every pending delivery.
 */
export async function dispatchRound(
  deps: { db: Database; jobs: WebhookDeliveryJobs; now: () => Date },
  settings: DispatchSettings,
): Promise<DispatchResult> {
  const { db } = deps;
  const now = deps.now();
  let lost = 0;
  const expiredPages = dateOrderedPages<DeliveryState>(
    (from, limit) => db.webhookDeliveries
      .find({ status: 'sending', leaseUntil: from === null ? { $lte: now } : { $gte: from, $lte: now } })
      .sort({ leaseUntil: 1, _id: 1 }).limit(limit).select({ _id: 1, attempt: 1, leaseUntil: 1 }).lean(),
    (delivery) => delivery.leaseUntil ?? now,
    settings.batchSize,
  );
  for await (const page of expiredPages) {
    const retries: DeliveryAttempt[] = [];
    for (const delivery of page) {
      const next = afterFailedAttempt(delivery.attempt, settings.retryScheduleMs, now);
      const attempt = { at: now, statusCode: null, durationMs: null, error: lostAttemptError, responseExcerpt: null };
      // Conditional on the attempt count: a worker that records its outcome first keeps it.
      const updated = await db.webhookDeliveries.updateOne(
        { _id: delivery._id, status: 'sending', attempt: delivery.attempt },
        {
          $set: { status: next.status, nextAttemptAt: next.nextAttemptAt, leaseUntil: null },
          $push: { attempts: attempt },
        },
      );
      lost += updated.modifiedCount;
      if (updated.modifiedCount > 0 && next.status === 'pending') {
        retries.push({ deliveryId: delivery._id.toHexString(), attempt: delivery.attempt, dueAt: next.nextAttemptAt });
      }
    }
    await deps.jobs.queue(retries);
  }

  const cutoff = new Date(now.getTime() - settings.graceMs);
  let requeued = 0;
  const overduePages = dateOrderedPages<DeliveryState>(
    (from, limit) => db.webhookDeliveries
      .find({ status: 'pending', nextAttemptAt: from === null ? { $lte: cutoff } : { $gte: from, $lte: cutoff } })
      .sort({ nextAttemptAt: 1, _id: 1 }).limit(limit).select({ _id: 1, attempt: 1, nextAttemptAt: 1 }).lean(),
    (delivery) => delivery.nextAttemptAt ?? cutoff,
    settings.batchSize,
  );
  for await (const page of overduePages) {
    await deps.jobs.queue(page.map((delivery) => ({
      deliveryId: delivery._id.toHexString(), attempt: delivery.attempt, dueAt: now,
    })));
    requeued += page.length;
  }
  return { requeued, lost };
}
