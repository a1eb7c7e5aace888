import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { throttledWaitMs, type RateLimitReset } from '../kit/rate-limit-reset.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

/**
 * Dribbble's refusals (design-blogging-business.md 2.5): `{message}`, and for a validation
 * failure (422) `{message: "Validation failed.", errors: [{attribute, message}]}`.
 */
const errorBody = z.object({
  message: z.string(),
  errors: z.array(z.object({ attribute: z.string().optional(), message: z.string() })).optional(),
}).loose();

/** Dribbble's words, with each refused field: "Validation failed. image must be 400x300 or 800x600". */
export function dribbbleErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const details = (parsed.data.errors ?? []).map(({ attribute, message }) => (
    attribute === undefined || attribute === 'base' ? message : `${attribute} ${message}`
  ));
  return details.length === 0 ? parsed.data.message : `${parsed.data.message} ${details.join('; ')}`;
}

/** v1 refused a spent rate limit with 403 "Rate Limit Exceeded"; v2 is taken to answer 429, and either is read. */
function saysRateLimited(status: number, body: unknown): boolean {
  if (status === 429) return true;
  const parsed = errorBody.safeParse(body);
  return status === 403 && parsed.success && /rate limit/i.test(parsed.data.message);
}

/**
 * What a refusal means. 401: the token was revoked (Dribbble tokens neither expire nor refresh),
 * so the user must connect again, as the default says. A spent rate limit is retried after its
 * reset. Everything else about a shot is permanent, the daily shot limit included: it lifts
 * within a day, longer than a publish job waits, so the user is told and reschedules.
 */
export function classifyDribbbleRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (saysRateLimited(status, body)) return 'retryable';
  return undefined;
}

/** A limit counted per minute (the overview's examples show 60): with no reset named, a minute. */
const fallbackWaitMs = 60_000;

/** X-RateLimit-Reset: the Unix time the window reopens, on every answer. */
const dribbbleReset: RateLimitReset = {
  header: 'x-ratelimit-reset', counting: 'unix-seconds', fallbackMs: fallbackWaitMs,
};

/**
 * How long a throttled call waits: Retry-After when sent, else X-RateLimit-Reset, the Unix time
 * (seconds) the window reopens, which Dribbble sends on every answer. At least a second, so a
 * reset already past on our clock still spaces the retry out.
 */
export function dribbbleRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  if (!saysRateLimited(status, body)) return retryAfterHeaderMs(header, now);
  return throttledWaitMs(header, now, dribbbleReset);
}
