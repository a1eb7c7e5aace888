import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { throttledWaitMs, type RateLimitReset } from '../kit/rate-limit-reset.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

/** Pinterest's refusals: `{code, message}` (the spec's `Error`). */
const errorBody = z.object({ code: z.number().int().optional(), message: z.string() }).loose();

/** Pinterest's own words for a refusal. */
export function pinterestErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
}

function codeOf(body: unknown): number | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.code : undefined;
}

/** Codes Pinterest throttles with: 8 for a rate limit, 30 for too many writes to one object. */
const throttleCodes = new Set([8, 30]);

/**
 * What a refusal while acting for a board means (design-blogging-business.md 1.5):
 * - 401, code 2 "Authentication failed.": the 30-day access token lapsed (or was revoked); the
 *   engine refreshes it, and a refused refresh flags the channel;
 * - 403, code 3: the token lacks a scope the call needs, which only connecting again grants;
 *   any other 403 (a board the user may not pin to) is about this pin alone;
 * - 429, or codes 8 and 30 whatever the status: throttled, retried after the wait;
 * - 400 (codes 1, 4196), 404 (board or pin not found): the pin as sent cannot succeed.
 */
export function classifyPinterestRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const code = codeOf(body);
  if (status === 429 || (code !== undefined && throttleCodes.has(code))) return 'retryable';
  if (status === 401) return 'refresh_token';
  if (status === 403) return code === 3 ? 'disconnected' : 'permanent';
  return undefined;
}

/**
 * Pinterest's per-category limits (org_write, org_read, org_analytics) are counted per minute:
 * with no reset named, waiting a minute lets the window turn over.
 */
export const pinterestThrottleWaitMs = 60_000;

/** X-RateLimit-Reset: the seconds until the window reopens, or the Unix time it does. */
const pinterestReset: RateLimitReset = {
  header: 'x-ratelimit-reset', counting: 'seconds-or-unix', fallbackMs: pinterestThrottleWaitMs,
};

/**
 * How long a throttled call waits. The v5 spec documents no rate-limit headers, so this reads
 * what a 429 may carry, most explicit first: Retry-After, then X-RateLimit-Reset (seconds until
 * the window reopens, or the Unix time it does), else a minute (`pinterestThrottleWaitMs`).
 * Never under a second, so a reset already past on our clock still spaces the retry out.
 */
export function pinterestRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  if (classifyPinterestRefusal(status, body) !== 'retryable') return retryAfterHeaderMs(header, now);
  return throttledWaitMs(header, now, pinterestReset);
}
