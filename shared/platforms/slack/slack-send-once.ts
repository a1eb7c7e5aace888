import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { SlackRefusal } from './slack-errors.ts';

/** When an attempt sent the part (ms); set before the call, cleared by Slack's definite refusal. */
export const sentKey = 'sentAt';

/** The earlier attempt's send time, or null when no attempt sent the part without hearing back. */
export function earlierSend(checkpoint: PartCheckpoint): number | null {
  const earlier = Number(checkpoint.values[sentKey] ?? '');
  return Number.isFinite(earlier) && earlier > 0 ? earlier : null;
}

export interface OnceStep {
  checkpoint: PartCheckpoint;
  now: () => number;
  /** chat.postMessage; answers the message's ts. */
  send(): Promise<string>;
  /** The ts of the part's message an earlier attempt made, looked up since that attempt. */
  find(sinceMs: number): Promise<string | null>;
}

/**
 * Sends a text message so that a crash, or a lost answer, between Slack's accept and SPS's write
 * of the release id cannot post it twice: chat.postMessage has no idempotency key, so
 * - before the call the attempt checkpoints when it sent (`sentAt`); Slack's definite refusal
 *   (`ok: false`, a 429) clears it again, since nothing was posted; an unanswered call leaves it;
 * - a later attempt that finds `sentAt` reads the channel (or the thread) since then and takes
 *   the bot's message with the part's text; only when there is none does it send again. Slack
 *   shows a posted message in history as soon as it answers, so a miss means none was made.
 */
export async function sendOnce(step: OnceStep): Promise<string> {
  const { checkpoint } = step;
  const earlier = earlierSend(checkpoint);
  if (earlier !== null) {
    const found = await step.find(earlier);
    if (found !== null) return found;
  }
  // An earlier unanswered attempt keeps its mark: the next look-up still reads from then.
  if (earlier === null) await checkpoint.save({ [sentKey]: String(step.now()) });
  try {
    return await step.send();
  } catch (error) {
    if (error instanceof SlackRefusal && earlier === null) await checkpoint.save({ [sentKey]: '' });
    throw error;
  }
}
