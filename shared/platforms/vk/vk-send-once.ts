import { createHash } from 'node:crypto';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { VkRefusal } from './vk-errors.ts';

const provider = 'vk';

/** When an attempt sent the part's wall.post / wall.createComment and heard no answer (ms). */
const unansweredKey = 'sentAt';

/**
 * VK keeps a `guid` "for one hour" (dev.vk.com, wall.post: a unique identifier meant to stop
 * a repeated send of the same post, valid for one hour). Past this much of the hour, a repeat
 * is no longer trusted to be caught, and the wall is read instead.
 */
export const guidTrustMs = 50 * 60_000;

/**
 * The `guid` of one post part: the same on every attempt at the part (it comes from the part's
 * idempotency key), different for every part; 32 hex digits of a SHA-256.
 */
export function vkGuid(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32);
}

export interface OnceStep {
  checkpoint: PartCheckpoint;
  /** 'post' or 'comment', for messages. */
  what: string;
  /** The wall.post / wall.createComment call, with the part's guid; answers the item's id. */
  send(): Promise<number>;
  /** The item on the wall that carries this part's text and attachments, if there is one. */
  find(): Promise<number | null>;
  now: () => number;
}

function unconfirmed(what: string, why: string): PlatformError {
  return new PlatformError({
    kind: 'unconfirmed',
    provider,
    message: `VK may have published this ${what} (${why}) and SPS could not find it on the wall`,
  });
}

/**
 * Sends a part so that a crash, or a lost answer, between VK's accept and SPS's write of the
 * release id cannot publish it twice:
 * - before the call, the attempt checkpoints when it sent (`sentAt`); a definite refusal from
 *   VK clears it again, since nothing was made; only an unanswered call leaves it set;
 * - a later attempt that finds `sentAt` sends again with the same guid while VK still holds it
 *   (under `guidTrustMs`): VK answers with the item it already made, not a second one;
 * - VK refusing the guid as already used, or a `sentAt` older than VK's hour, makes the
 *   attempt look for the item on the wall (same text and attachments) and take it; when it is
 *   not there the part is 'unconfirmed', set aside for the user rather than sent again.
 */
export async function sendOnce(step: OnceStep): Promise<number> {
  const { checkpoint, what } = step;
  const earlier = Number(checkpoint.values[unansweredKey] ?? '');
  const unanswered = Number.isFinite(earlier) && earlier > 0;
  if (unanswered && step.now() - earlier >= guidTrustMs) {
    const found = await step.find();
    if (found !== null) return found;
    throw unconfirmed(what, 'an earlier attempt got no answer, longer ago than VK remembers its guid');
  }
  if (!unanswered) await checkpoint.save({ [unansweredKey]: String(step.now()) });
  try {
    return await step.send();
  } catch (error) {
    if (!(error instanceof VkRefusal)) throw error;
    if (error.saysAlreadyPublished) {
      const found = await step.find();
      if (found !== null) return found;
      throw unconfirmed(what, error.message);
    }
    // VK answered, and made nothing; an earlier unanswered attempt still may have, so its mark stays.
    if (!unanswered) await checkpoint.save({ [unansweredKey]: '' });
    throw error;
  }
}
