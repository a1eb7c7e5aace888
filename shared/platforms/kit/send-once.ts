import type { PartCheckpoint } from './platform-adapter.ts';

/**
 * Exactly once for a create call that takes no idempotency key, where the platform lists what the
 * account made (Google Business Profile's local posts; Lemmy's own `lemmy-send-once.ts` is the
 * same idea with its numeric ids): before the call the attempt checkpoints when it sent
 * (`sentAt`); a later attempt that finds the mark looks for the item made since then and takes
 * it, and sends only when there is none. The platform must list an item as soon as it answers
 * its create, so a miss means the earlier attempt made nothing.
 */

const sentKey = 'sentAt';

export interface SendOnceStep<T> {
  checkpoint: PartCheckpoint;
  now: () => number;
  /** The item an earlier attempt made, among items made since `fromMs`; null when there is none. */
  find(fromMs: number): Promise<T | null>;
  /** The create call. */
  send(): Promise<T>;
  /** The platform's clock and ours may differ: an item this much older than the mark still counts. */
  clockSlackMs: number;
}

/** When an earlier attempt sent the part (ms), or null on the first attempt. */
export function earlierSendOf(checkpoint: PartCheckpoint): number | null {
  const earlier = Date.parse(checkpoint.values[sentKey] ?? '');
  return Number.isNaN(earlier) ? null : earlier;
}

export async function sendOnce<T>(step: SendOnceStep<T>): Promise<T> {
  const earlier = earlierSendOf(step.checkpoint);
  if (earlier === null) {
    await step.checkpoint.save({ [sentKey]: new Date(step.now()).toISOString() });
  } else {
    // The first mark stays: looking from the earliest attempt covers every later one too.
    const found = await step.find(earlier - step.clockSlackMs);
    if (found !== null) return found;
  }
  return step.send();
}
