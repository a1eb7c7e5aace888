import { retryAfterHeaderMs } from './retry-after.ts';

/**
 * How a platform's reset header counts the time until its window reopens: as the Unix time it
 * does (Dribbble's X-RateLimit-Reset), as seconds from now with a fraction (Discord's
 * X-RateLimit-Reset-After), or as either, a number as large as a Unix time being one (Pinterest's
 * and Neynar's X-RateLimit-Reset).
 */
export type ResetCounting = 'unix-seconds' | 'seconds' | 'seconds-or-unix';

/** A reset this large is a Unix time in seconds rather than a count of seconds. */
const unixSecondsFloor = 1_000_000_000;

/**
 * The wait a reset header names, in whole milliseconds rounded up (past resets give a negative
 * wait, left to the caller's floor); null when the header is absent or names no time. Only a
 * count of seconds may be 0: "the window is open again now".
 */
export function resetHeaderWaitMs(value: string | null, counting: ResetCounting, now: number): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || (seconds === 0 && counting !== 'seconds')) return null;
  const unixTime = counting === 'unix-seconds' || (counting === 'seconds-or-unix' && seconds >= unixSecondsFloor);
  return Math.ceil(unixTime ? seconds * 1000 - now : seconds * 1000);
}

/** Where a platform names the end of a throttle besides Retry-After, and what it waits without one. */
export interface RateLimitReset {
  /** The reset header, lower case: `x-ratelimit-reset`. */
  header: string;
  counting: ResetCounting;
  /** The wait when neither header says (a window the platform documents), or null to leave it to the worker. */
  fallbackMs: number | null;
}

/** A throttle never waits less: a reset already past on our clock (clocks drift) still spaces the retry out. */
const minimumWaitMs = 1_000;

/**
 * How long a throttled call waits on a platform that names the end of its window: Retry-After
 * when sent (the most explicit), else the reset header, else the platform's fallback.
 */
export function throttledWaitMs(
  header: (name: string) => string | null,
  now: number,
  reset: RateLimitReset,
): number | null {
  const retryAfter = retryAfterHeaderMs(header, now);
  if (retryAfter !== null) return Math.max(minimumWaitMs, retryAfter);
  const resetWait = resetHeaderWaitMs(header(reset.header), reset.counting, now);
  return resetWait === null ? reset.fallbackMs : Math.max(minimumWaitMs, resetWait);
}
