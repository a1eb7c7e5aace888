import { z } from 'zod';
import { classifyGraphError, metaUsageRetryAfterMs } from '../facebook/meta-graph.ts';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { parseRetryAfter } from '../kit/platform-http.ts';

/**
 * How SPS reads graph.threads.net's refusals, on top of what every Meta Graph host shares
 * (meta-graph.ts: 190 dead token, 4/17/32/613 throttling, 1/2 Meta's own trouble).
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5, 6.5 and 6.7.
 */

const refusalBody = z.object({
  error: z.object({ message: z.string(), code: z.number().optional(), error_subcode: z.number().optional() }).loose(),
});

export interface GraphRefusal {
  code: number | null;
  subcode: number | null;
}

export function readRefusal(body: unknown): GraphRefusal | null {
  const parsed = refusalBody.safeParse(body);
  if (!parsed.success) return null;
  return { code: parsed.data.error.code ?? null, subcode: parsed.data.error.error_subcode ?? null };
}

/**
 * The profile used its publishing quota (250 posts, 1,000 replies in a moving 24 hours). Meta
 * answers Instagram's content publishing limit with code 9 and this subcode; Threads runs on
 * the same publishing stack and is read the same way.
 */
export const publishingLimitSubcode = 2207042;

/** Meta's call-rate limits: app, user, Page, custom, and the business use case codes. */
function isThrottling(code: number | null): boolean {
  return code !== null && ([4, 17, 32, 341, 613].includes(code) || (code >= 80001 && code <= 80014));
}

/** How long to wait when the quota is used: it frees up as the oldest post leaves the 24 hours. */
export const publishingLimitWaitMs = 60 * 60 * 1000;

/** A throttled answer without a usage header: Meta's windows are rolling, so look again soon. */
const throttledWithoutResetMs = 60 * 1000;

/**
 * Meta answers most refusals with HTTP 400, so the kind comes from the code. Beyond Meta's
 * shared reading: a missing permission (10, 200-299) needs the user to connect again and grant
 * it, and a used-up publishing quota passes.
 */
export function classifyThreadsError(status: number, body: unknown): PlatformErrorKind | undefined {
  const refusal = readRefusal(body);
  if (refusal?.subcode === publishingLimitSubcode) return 'retryable';
  const code = refusal?.code ?? null;
  if (code === 10 || (code !== null && code >= 200 && code <= 299)) return 'disconnected';
  return classifyGraphError(status, body);
}

/**
 * How long a refusal asks us to wait. Meta sends no Retry-After: a throttled answer carries
 * X-Business-Use-Case-Usage with `estimated_time_to_regain_access` in minutes, and a used-up
 * publishing quota carries nothing (the quota is a moving 24 hours). Other refusals keep
 * Retry-After alone. `refusal` is the body's code, read by `classifyThreadsError`'s caller.
 */
export function threadsRetryAfterMs(
  refusal: GraphRefusal | null,
  header: (name: string) => string | null,
  now: number,
): number | null {
  if (refusal?.subcode === publishingLimitSubcode) return publishingLimitWaitMs;
  if (isThrottling(refusal?.code ?? null)) {
    return metaUsageRetryAfterMs(header)
      ?? parseRetryAfter(header('retry-after'), now)
      ?? throttledWithoutResetMs;
  }
  return parseRetryAfter(header('retry-after'), now);
}
