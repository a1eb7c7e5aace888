import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { throttledWaitMs, type RateLimitReset } from '../kit/rate-limit-reset.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

/** Neynar's ErrorRes: `{message, code?, property?, status?}`. */
const errorBody = z.object({ message: z.string(), code: z.string().optional(), property: z.string().optional() });

/** Neynar's own words, naming the field it refused when it says which. */
export function neynarErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const { message, property } = parsed.data;
  return property === undefined ? `Neynar: ${message}` : `Neynar: ${message} (${property})`;
}

/**
 * What a refusal while acting for a channel means. 401 is the app's API key (the default
 * classification). A 403 about the signer (`SignerNotApproved`: revoked, or never approved) and a
 * 404 for the signer (made with another key, or deleted) leave the channel unable to cast until
 * the user connects it again; a 403 or 404 about anything else (a channel, a parent cast) is
 * about the cast and fails it alone.
 */
export function classifyNeynarRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (status !== 403 && status !== 404) return undefined;
  const parsed = errorBody.safeParse(body);
  const property = parsed.success ? parsed.data.property : undefined;
  const aboutSigner = property === 'signer_uuid' || (parsed.success && parsed.data.code === 'SignerNotApproved');
  if (aboutSigner) return 'disconnected';
  // A bare 403 cannot be pinned on the cast: it is how Neynar refuses a key or signer it will not serve.
  if (status === 403 && property === undefined) return 'disconnected';
  return 'permanent';
}

/** X-RateLimit-Reset: a Unix time in seconds, or seconds from now; without it the worker decides. */
const neynarReset: RateLimitReset = { header: 'x-ratelimit-reset', counting: 'seconds-or-unix', fallbackMs: null };

/**
 * How long a 429 asks us to wait: Retry-After when sent, otherwise X-RateLimit-Reset (a Unix time
 * in seconds, or seconds from now). At least one second, so a reset already past still spaces the
 * retry out. Other answers keep Retry-After alone, as platform-http does by default.
 */
export function neynarRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
): number | null {
  if (status !== 429) return retryAfterHeaderMs(header, now);
  return throttledWaitMs(header, now, neynarReset);
}
