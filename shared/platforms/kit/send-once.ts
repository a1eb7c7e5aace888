import type { PartCheckpoint } from './platform-adapter.ts';
import { PlatformError } from './platform-error.ts';

/**
 * Sending a part at most once to a platform that takes no idempotency key (Dev.to, Hashnode,
 * Medium): before the create call the attempt checkpoints when it sent (`sentAt`); a later
 * attempt that finds the mark looks for what the unanswered send made and takes it, and sends
 * only when there is nothing. A platform without any way to look (Medium) makes `find` throw
 * `unconfirmed`. A refusal the platform answered proves nothing was made, so it clears the mark:
 * the next attempt (after a throttle, say) sends without looking.
 */

const sentKey = 'sentAt';
/** The platform's clock and ours may differ; an item this much older than the mark still counts. */
const defaultClockSlackMs = 5 * 60_000;

export interface SendOnceStep<T> {
  checkpoint: PartCheckpoint;
  /** What an unanswered earlier attempt made, among the account's items made since `from` (ms). */
  find(from: number): Promise<T | null>;
  /** The create call. */
  send(): Promise<T>;
  now: () => number;
  clockSlackMs?: number;
  /**
   * Whether a failure of `send` proves the platform made nothing; defaults to an HTTP 4xx answer
   * (a 5xx may come after the write, and a lost answer tells nothing).
   */
  refused?: (error: unknown) => boolean;
}

const answeredWith4xx = (error: unknown): boolean =>
  error instanceof PlatformError && error.httpStatus !== null && error.httpStatus >= 400 && error.httpStatus < 500;

/** When an earlier attempt sent without hearing back, or null. */
export function unansweredSendAt(checkpoint: PartCheckpoint): number | null {
  const at = Date.parse(checkpoint.values[sentKey] ?? '');
  return Number.isNaN(at) ? null : at;
}

/** Finds what an unanswered earlier attempt made, or marks this attempt and sends. */
export async function sendOnce<T>(step: SendOnceStep<T>): Promise<T> {
  const earlier = unansweredSendAt(step.checkpoint);
  if (earlier === null) {
    await step.checkpoint.save({ [sentKey]: new Date(step.now()).toISOString() });
  } else {
    // The first mark stays: looking from the earliest attempt covers every later one too.
    const found = await step.find(earlier - (step.clockSlackMs ?? defaultClockSlackMs));
    if (found !== null) return found;
  }
  try {
    return await step.send();
  } catch (error) {
    if ((step.refused ?? answeredWith4xx)(error)) await step.checkpoint.save({ [sentKey]: '' });
    throw error;
  }
}

/**
 * Among items in the right place since the mark, the one with the content as sent; failing that
 * the only one, since a platform may rewrite what it stores. Two others are not this part's.
 */
export function pickSent<T>(candidates: readonly T[], sameContent: (item: T) => boolean): T | null {
  const exact = candidates.find(sameContent);
  if (exact !== undefined) return exact;
  const [only, other] = candidates;
  return only !== undefined && other === undefined ? only : null;
}
