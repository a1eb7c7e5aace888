import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * LinkedIn's refusals: `{status, serviceErrorCode?, code?, message}`, validation refusals adding
 * `errorDetails.inputErrors[]`. Facts: ../shared/platforms/oauth-majors.md, section 2.5.
 */
const refusal = z.object({
  status: z.number().optional(),
  serviceErrorCode: z.number().optional(),
  code: z.string().optional(),
  message: z.string(),
}).loose();

export type LinkedinRefusal = z.infer<typeof refusal>;

export function readLinkedinRefusal(body: unknown): LinkedinRefusal | undefined {
  const parsed = refusal.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/** LinkedIn's own words, with its code where it sent one, so a user can look it up. */
export function linkedinRefusalMessage(body: unknown): string | undefined {
  const said = readLinkedinRefusal(body);
  if (said === undefined) return undefined;
  const code = said.code ?? (said.serviceErrorCode === undefined ? undefined : String(said.serviceErrorCode));
  return code === undefined ? `LinkedIn: ${said.message}` : `LinkedIn: ${said.message} (${code})`;
}

/** The earlier post a 422 DUPLICATE_POST names: "Content is a duplicate of urn:li:share:…". */
export function duplicatedPostUrn(body: unknown): string | null {
  const said = readLinkedinRefusal(body);
  if (said === undefined) return null;
  const isDuplicate = said.code === 'DUPLICATE_POST' || /content is a duplicate/i.test(said.message);
  if (!isDuplicate) return null;
  return /(urn:li:(?:share|ugcPost):\d+)/.exec(said.message)?.[1] ?? null;
}

/**
 * What a refusal means for the channel and the part:
 * - 401 (65600 invalid, 65601 revoked, 65602 expired): the 60-day token is no longer taken; the
 *   engine refreshes it where the app holds a refresh token and flags the channel otherwise (a
 *   revoked app's refresh token is refused too, which flags it).
 * - 403 ACCESS_DENIED: the token lacks the scope, or the member lost the Page role; only the
 *   user can fix that (reconnect, or have the role given back), so the channel is flagged.
 * - 422 (duplicate content, invalid fields), 400, 404, 426 (a retired LinkedIn-Version): the
 *   same request would be refused again.
 * - 429 and 5xx: later.
 */
export function classifyLinkedinRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (status === 401) return 'refresh_token';
  if (status === 403) return readLinkedinRefusal(body)?.code === 'ACCESS_DENIED' ? 'disconnected' : 'permanent';
  if (status === 429 || status >= 500) return 'retryable';
  return 'permanent';
}

/** Whether a refusal is LinkedIn's ACCESS_DENIED: the token may not read what was asked. */
export function isAccessDenied(status: number | null, body: unknown): boolean {
  return status === 403 && readLinkedinRefusal(body)?.code === 'ACCESS_DENIED';
}

/**
 * How long a 429 waits. LinkedIn sends no Retry-After and no rate-limit headers; its quotas are
 * daily and reset at midnight UTC, the only reset it documents, so a throttled call waits until
 * then (at least a minute). The publish worker caps any wait at PUBLISH_MAX_RETRY_AFTER_MS (an
 * hour by default) and delays a job at most PUBLISH_MAX_RATE_LIMIT_DELAYS times, so a 429 from
 * LinkedIn's burst protection rather than a quota costs at most that cap. A Retry-After, should
 * LinkedIn or a proxy ever send one, wins.
 */
export function linkedinRetryAfterMs(
  status: number,
  header: (name: string) => string | null,
  now: number,
): number | null {
  const retryAfter = header('retry-after');
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter.trim()) * 1000;
  if (status !== 429) return null;
  return Math.max(60_000, untilUtcMidnight(now));
}

export function untilUtcMidnight(now: number): number {
  const today = new Date(now);
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1);
  return midnight - now;
}
