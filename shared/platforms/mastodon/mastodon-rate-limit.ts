import { retryAfterHeaderMs } from '../kit/retry-after.ts';

/**
 * A throttled instance never asks to wait too little: a reset already past on our clock (clocks
 * drift) still waits this long, so a retry does not meet the same closed window at once.
 */
const minimumWaitMs = 1_000;

/**
 * How long Mastodon asks us to wait: it answers 429 with `X-RateLimit-Reset`, the ISO 8601 time
 * its window reopens (with `X-RateLimit-Limit` and `X-RateLimit-Remaining`), not Retry-After.
 * Every answer carries these headers, so the reset means "wait" only on a 429. A proxy in front
 * of an instance may still send Retry-After, which is read when there is no reset.
 */
export function mastodonRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
): number | null {
  const reset = status === 429 ? header('x-ratelimit-reset') : null;
  const resetAt = reset === null ? Number.NaN : Date.parse(reset);
  if (!Number.isNaN(resetAt)) return Math.max(minimumWaitMs, resetAt - now);
  return retryAfterHeaderMs(header, now);
}
