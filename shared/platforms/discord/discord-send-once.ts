import { createHash } from 'node:crypto';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';

/** When an attempt sent the part and heard no answer (ms since the epoch); '' once Discord answered. */
const sentKey = 'sentAt';

/**
 * How long after an unanswered send a repeat is left to Discord's nonce. Discord checks an
 * enforced nonce against "the past few minutes" without naming how many: one minute stays well
 * inside that, and a retry later than this looks the message up first.
 */
export const nonceTrustMs = 60_000;

/** Discord's epoch (2015-01-01T00:00:00Z): a snowflake's top bits count milliseconds from it. */
const discordEpochMs = 1_420_070_400_000;

/** How far before the checkpointed send a look-up starts: the two clocks may differ a little. */
const clockMarginMs = 60_000;

/**
 * The nonce of one post part: the same on every attempt at the part (it comes from the part's
 * idempotency key), different for every part; 25 hex digits of a SHA-256, Discord's longest nonce.
 */
export function discordNonce(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 25);
}

/** The snowflake of a moment shortly before `sentAt`: anything Discord made at or after `sentAt` has a larger id. */
export function snowflakeBefore(sentAt: number): string {
  const ms = BigInt(Math.max(0, sentAt - clockMarginMs - discordEpochMs));
  return (ms << 22n).toString();
}

export interface OnceStep<T> {
  checkpoint: PartCheckpoint;
  /**
   * How long after an unanswered send a repeat may rely on Discord to answer with what it made
   * (`nonceTrustMs` for a message with an enforced nonce); null where nothing protects a repeat
   * (a forum post, which takes no nonce), so every retry looks first.
   */
  trustMs: number | null;
  /** The request, carrying the part's nonce where Discord takes one. */
  send(): Promise<T>;
  /** What an unanswered send made, looked up on Discord: the bot's item made since `sentAt`, if any. */
  find(sentAt: number): Promise<T | null>;
  now(): number;
}

/**
 * Sends a part so that a crash, or a lost answer, between Discord's accept and SPS's write of
 * the release id cannot publish it twice:
 * - before the request, the attempt checkpoints when it sent (`sentAt`); Discord answering, even
 *   with a refusal, clears it again, since then nothing was made unseen;
 * - a later attempt that finds `sentAt` younger than `trustMs` sends again with the same nonce,
 *   and Discord answers with the message it already made;
 * - an older `sentAt` (or one without a nonce behind it) makes the attempt look for the item
 *   the bot made since then and take it; only when there is none does it send again, with a new
 *   `sentAt`.
 */
export async function sendOnce<T>(step: OnceStep<T>): Promise<T> {
  const { checkpoint } = step;
  const earlier = Number(checkpoint.values[sentKey] ?? '');
  const unanswered = Number.isFinite(earlier) && earlier > 0;
  const trusted = unanswered && step.trustMs !== null && step.now() - earlier < step.trustMs;
  if (unanswered && !trusted) {
    const found = await step.find(earlier);
    if (found !== null) return found;
  }
  // A send within the nonce's trust keeps the first mark, so the window is counted from the first send.
  if (!trusted) await checkpoint.save({ [sentKey]: String(step.now()) });
  try {
    return await step.send();
  } catch (error) {
    // Discord answered and made nothing; a trusted repeat keeps the mark of the send it repeats.
    const answered = error instanceof PlatformError && error.httpStatus !== null;
    if (answered && !trusted) await checkpoint.save({ [sentKey]: '' });
    throw error;
  }
}
