import type { PartCheckpoint, PublishResult } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { FileReadFailure, provider } from './telegram-errors.ts';

/** When an attempt sent the part and had no answer yet (ms since the epoch); '' once it was refused. */
const sentKey = 'sentAt';
/** The part's release id and URL, saved as soon as Telegram answers, before the engine writes them. */
const releaseIdKey = 'releaseId';
const releaseUrlKey = 'releaseURL';

/** System errors that mean the connection was never made: no byte of the request reached Telegram. */
const neverConnected = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') codes.push(code);
    current = cause;
  }
  return codes;
}

/**
 * Whether a failed send certainly made nothing: Telegram refused it in words (any 4xx, 429 among
 * them), the connection was never made, or SPS failed before sending or while sending a file
 * (FileReadFailure: a body cut short is not acted on).
 * Not so: a timeout, a connection broken before the answer, a 5xx from Telegram's front (the
 * method may have run behind it), or a 2xx SPS could not read.
 */
function madeNothing(error: unknown): boolean {
  if (!(error instanceof PlatformError) || error instanceof FileReadFailure) return true;
  if (error.httpStatus !== null) return error.httpStatus >= 400 && error.httpStatus < 500;
  return codesOf(error.cause).some((code) => neverConnected.has(code));
}

function unconfirmed(why: string): PlatformError {
  return new PlatformError({
    kind: 'unconfirmed',
    provider,
    message: `Telegram may have posted this message (${why}); the Bot API has no idempotency key and a bot`
      + ' cannot read the chat\'s history, so SPS will not send it again: check the chat, and link the message'
      + ' with PUT /posts/:id/release-id if it is there',
  });
}

/**
 * Sends a part at most once. The Bot API has no idempotency key and a bot cannot read the chat
 * it posts in (open-and-community.md 10.5), so a message sent without an answer cannot be looked
 * up afterwards:
 * - before the call the attempt checkpoints when it sent (`sentAt`); Telegram's answer is
 *   checkpointed at once (`releaseId`, `releaseURL`), so a retry after a crash between that and
 *   the engine's own write takes it instead of sending again;
 * - a failure that certainly made nothing (`madeNothing`) clears `sentAt`: the retry sends;
 * - any other failure leaves it, and the next attempt sets the part aside as 'unconfirmed'
 *   for the user to check, rather than risk a second message.
 */
export async function sendOnce(
  checkpoint: PartCheckpoint,
  send: () => Promise<PublishResult>,
  now: () => number = Date.now,
): Promise<PublishResult> {
  const saved = checkpoint.values[releaseIdKey];
  if (saved !== undefined && saved !== '') {
    return { releaseId: saved, releaseURL: checkpoint.values[releaseUrlKey] ?? '' };
  }
  const sentAt = Number(checkpoint.values[sentKey] ?? '');
  if (Number.isFinite(sentAt) && sentAt > 0) {
    throw unconfirmed(`an attempt sent it at ${new Date(sentAt).toISOString()} and got no answer`);
  }
  await checkpoint.save({ [sentKey]: String(now()) });
  let result: PublishResult;
  try {
    result = await send();
  } catch (error) {
    if (error instanceof PlatformError && error.httpStatus !== null && error.httpStatus < 300) {
      throw unconfirmed(error.message);
    }
    if (madeNothing(error)) await checkpoint.save({ [sentKey]: '' });
    throw error;
  }
  await checkpoint.save({ [releaseIdKey]: result.releaseId, [releaseUrlKey]: result.releaseURL });
  return result;
}
