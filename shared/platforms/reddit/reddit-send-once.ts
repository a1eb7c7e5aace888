import { setTimeout as sleep } from 'node:timers/promises';
import type { PartCheckpoint, PublishResult } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { isDefiniteRefusal, provider } from './reddit-errors.ts';

/** When the part's first attempt was about to submit (ms since the epoch); '' once Reddit refused it. */
const submittedKey = 'submittedAt';

export interface ListingTuning {
  /** Reads of the account's posts after Reddit accepted a media submission without naming it. */
  listingPolls: number;
  listingPollMs: number;
  /**
   * How long an image or video submission may take to show among the account's posts; past it
   * the part is set aside as unconfirmed, since it may still appear.
   */
  processingWindowMs: number;
  /** How long the job waits before looking again while a submission may still be processing. */
  processingWaitMs: number;
}

/**
 * Images show within seconds of being accepted, videos once transcoded. The engine follows up to
 * 10 waits of a platform's asking before they count as attempts: 10 minutes of minute-long waits.
 */
export const defaultListingTuning: ListingTuning = {
  listingPolls: 5,
  listingPollMs: 2_000,
  processingWindowMs: 10 * 60_000,
  processingWaitMs: 60_000,
};

export interface OnceStep<Prepared> {
  checkpoint: PartCheckpoint;
  /** 'post' or 'comment', for messages. */
  what: string;
  /**
   * Whether what Reddit makes is among the account's items as soon as it answers: self, link
   * and gallery posts and comments are; image and video posts appear once their media are
   * processed, after Reddit answered without their id.
   */
  listedAtOnce: boolean;
  /**
   * What the submission needs and may be prepared more than once (media uploads, checkpointed
   * by themselves); runs only when no earlier attempt's item was found.
   */
  prepare(): Promise<Prepared>;
  /** The submission; answers the item, or null where Reddit accepted without naming it. */
  send(prepared: Prepared): Promise<PublishResult | null>;
  /** The item this part made, among the account's items made since `since`, if there is one. */
  find(since: number): Promise<PublishResult | null>;
  now(): number;
}

function notListedYet(step: OnceStep<unknown>, since: number, tuning: ListingTuning): PlatformError {
  const minutes = Math.round((step.now() - since) / 60_000);
  if (step.now() - since < tuning.processingWindowMs) {
    const message = `Reddit has not listed the ${step.what} among the account's posts yet (its media may still be `
      + 'processing); SPS looks again';
    return new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: tuning.processingWaitMs });
  }
  const message = `Reddit may have made this ${step.what}: it was submitted ${String(minutes)} minutes ago and has `
    + 'not appeared among the account\'s posts';
  return new PlatformError({ kind: 'unconfirmed', provider, message });
}

/**
 * Sends a part so that a crash, or a lost answer, between Reddit's accept and SPS's write of the
 * release id cannot publish it twice. Reddit has no idempotency key, so:
 * - the files go up first (`prepare`, each checkpointed by itself); only then, right before the
 *   submission, the attempt checkpoints when it submitted (`submittedAt`, kept from the first
 *   attempt); a definite refusal (`json.errors`, a 4xx) clears it again, as nothing was made;
 * - a later attempt that finds `submittedAt` first looks among the account's items made since
 *   then for this part (same subreddit and title; same parent and text for a comment) and takes it;
 * - not found, a self, link or gallery post or a comment is sent again: Reddit makes those
 *   before it answers and lists them to their author at once (removed and spam-filtered ones
 *   included), so one an earlier attempt made would have been found;
 * - not found, an image or video post is never sent again: Reddit answers those before the post
 *   exists and lists it once the media are processed. The attempt waits for it while that can
 *   take (`processingWindowMs`), then sets the part aside as 'unconfirmed' for the user to check.
 */
export async function sendOnce<Prepared>(step: OnceStep<Prepared>, tuning: ListingTuning): Promise<PublishResult> {
  const { checkpoint } = step;
  const marker = Number(checkpoint.values[submittedKey] ?? '');
  const earlier = Number.isFinite(marker) && marker > 0 ? marker : null;
  if (earlier !== null) {
    const found = await step.find(earlier);
    if (found !== null) return found;
    if (!step.listedAtOnce) throw notListedYet(step, earlier, tuning);
  }
  const prepared = await step.prepare();
  const since = earlier ?? step.now();
  if (earlier === null) await checkpoint.save({ [submittedKey]: String(since) });

  let made: PublishResult | null;
  try {
    made = await step.send(prepared);
  } catch (error) {
    if (isDefiniteRefusal(error)) {
      await checkpoint.save({ [submittedKey]: '' });
      throw error;
    }
    // Accepted with an answer SPS cannot read: what was made is looked for at once.
    if (error instanceof PlatformError && error.kind === 'unconfirmed') {
      const found = await step.find(since);
      if (found !== null) return found;
    }
    throw error;
  }
  if (made !== null) return made;
  for (let poll = 0; poll < tuning.listingPolls; poll += 1) {
    if (poll > 0) await sleep(tuning.listingPollMs);
    const found = await step.find(since);
    if (found !== null) return found;
  }
  throw notListedYet(step, since, tuning);
}
