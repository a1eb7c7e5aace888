import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';
import { googleApiErrorMessage, googleErrorReasons } from '../google/google-oauth.ts';
import { msUntilPacificMidnight } from './pacific-midnight.ts';

/**
 * YouTube Data API refusals: `{error: {code, message, status, errors: [{domain, reason}]}}`, where
 * the reason, not the HTTP status, says what happened (a spent quota and a forbidden action are
 * both 403). Facts: ../shared/platforms/oauth-majors.md, sections 7.5 and 7.7.
 */

/** The project's daily units are spent; they come back at midnight Pacific time. */
const dailyQuota = new Set(['quotaExceeded', 'dailyLimitExceeded']);
/** Short windows (per minute, per user): Google documents no reset, only "back off". */
const burstLimits = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

/** What some reasons mean for the user, said before Google's own words. */
const explanations: Record<string, string> = {
  quotaExceeded: 'the daily YouTube API quota of this installation\'s Google project is spent until midnight '
    + 'Pacific time',
  uploadLimitExceeded: 'the channel has uploaded as many videos as YouTube allows it for now; schedule the post '
    + 'again later',
  youtubeSignupRequired: 'the Google account has no YouTube channel: create one on YouTube, then connect again',
  forbidden: 'YouTube does not allow this for the channel',
  insufficientPermissions: 'the channel was connected without a permission this needs: connect it again',
};

/** Google's message, without the HTML links it puts in some (`your <a href=...>quota</a>`). */
export function youtubeErrorMessage(body: unknown): string | undefined {
  const google = googleApiErrorMessage(body)?.replace(/<[^<>]*>/g, '');
  if (google === undefined) return undefined;
  const reason = googleErrorReasons(body)[0];
  const explanation = reason === undefined ? undefined : explanations[reason];
  return explanation === undefined ? `YouTube: ${google}` : `YouTube: ${explanation} (${google})`;
}

/**
 * - quota and rate limits: retryable, whatever the status (403 or 429);
 * - `youtubeSignupRequired` comes as a 401 but no new token helps: permanent, with what to do;
 * - any other 401 (`authError`): the hour-long access token expired; the engine refreshes it;
 * - `uploadLimitExceeded`, `forbidden`, bad metadata and other 4xx: permanent in YouTube's words;
 * - 5xx: retryable (the status decides).
 */
export function classifyYoutubeRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const reasons = googleErrorReasons(body);
  if (reasons.some((reason) => dailyQuota.has(reason) || burstLimits.has(reason))) return 'retryable';
  if (reasons.includes('youtubeSignupRequired')) return 'permanent';
  if (status === 401) return 'refresh_token';
  return undefined;
}

/** Burst limits name no reset; a minute covers Google's per-minute windows. */
const burstWaitMs = 60_000;
/** Google's counters do not all turn over on the second: wait a little past midnight. */
const midnightSlackMs = 60_000;

/**
 * How long a throttled call waits: a Retry-After where one is sent, else until the quota's reset
 * at midnight Pacific time for a spent daily quota, else a minute for a burst limit. The publish
 * worker caps the wait (PUBLISH_MAX_RETRY_AFTER_MS) and counts the delays.
 */
export function youtubeRetryAfterMs(
  _status: number,
  header: (name: string) => string | null,
  now: number,
  body: unknown,
): number | null {
  const retryAfter = retryAfterHeaderMs(header, now);
  if (retryAfter !== null) return retryAfter;
  const reasons = googleErrorReasons(body);
  if (reasons.some((reason) => dailyQuota.has(reason))) return msUntilPacificMidnight(now) + midnightSlackMs;
  if (reasons.some((reason) => burstLimits.has(reason))) return burstWaitMs;
  return null;
}
