import { classifyGraphError } from '../meta/meta-graph.ts';
import { publishingLimitSubcode, readGraphRefusal } from '../meta/meta-graph-refusals.ts';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * How SPS reads graph.threads.net's refusals, on top of what every Meta Graph host shares
 * (meta-graph.ts: 190 dead token, 4/17/32/613 throttling, 1/2 Meta's own trouble).
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5, 6.5 and 6.7.
 */

/**
 * Meta answers most refusals with HTTP 400, so the kind comes from the code. Beyond Meta's
 * shared reading: a missing permission (10, 200-299) needs the user to connect again and grant
 * it, and a used-up publishing quota passes.
 */
export function classifyThreadsError(status: number, body: unknown): PlatformErrorKind | undefined {
  const refusal = readGraphRefusal(body);
  // The profile used its publishing quota (250 posts, 1,000 replies in a moving 24 hours).
  if (refusal?.subcode === publishingLimitSubcode) return 'retryable';
  const code = refusal?.code ?? null;
  if (code === 10 || (code !== null && code >= 200 && code <= 299)) return 'disconnected';
  return classifyGraphError(status, body);
}
