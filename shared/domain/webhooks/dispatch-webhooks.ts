import type { Database } from '../../db/database.ts';
import { lostAttemptError } from './deliver-webhook.ts';
import { afterFailedAttempt } from './retry-schedule.ts';

export interface DispatchSettings {
  /** Deliveries handed out per round; the rest wait for the next round, oldest due first. */
  batchSize: number;
  retryScheduleMs: readonly number[];
}

export interface DispatchResult {
  /** Deliveries due now, each with the attempt count its job claims. */
  due: { deliveryId: string; attempt: number }[];
  /** Attempts whose worker stopped (the lease ran out), counted as failed and rescheduled. */
  lost: number;
}

/**
 * One round of the dispatcher. Attempts whose lease ran out are recorded as lost and scheduled
 * like any failed attempt; then the pending deliveries that are due are listed for the caller to
 * queue. Both queries are an equality on status (only unsettled deliveries are read on FerretDB)
 * with a range, on the {status, nextAttemptAt} and {status, leaseUntil} indexes.
 */
export async function dispatchRound(
  deps: { db: Database; now: () => Date },
  settings: DispatchSettings,
): Promise<DispatchResult> {
  const { db } = deps;
  const now = deps.now();
  const expired = await db.webhookDeliveries
    .find({ status: 'sending', leaseUntil: { $lte: now } })
    .sort({ leaseUntil: 1 })
    .limit(settings.batchSize)
    .select({ _id: 1, attempt: 1 })
    .lean();
  let lost = 0;
  for (const delivery of expired) {
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
  }
  const due = await db.webhookDeliveries
    .find({ status: 'pending', nextAttemptAt: { $lte: now } })
    .sort({ nextAttemptAt: 1, _id: 1 })
    .limit(settings.batchSize)
    .select({ _id: 1, attempt: 1 })
    .lean();
  return { due: due.map((delivery) => ({ deliveryId: delivery._id.toString(), attempt: delivery.attempt })), lost };
}
