import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * How SPS reads TikTok API v2's refusals: every answer carries `error.{code, message, log_id}`
 * (`code: "ok"` on success), and the kind comes from the code, not the HTTP status
 * (shared/platforms/oauth-majors.md, sections 8.5 and 8.7).
 */

/** TikTok API v2 errors: `{error: {code, message, log_id}}`. */
const apiError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export function tiktokErrorCode(body: unknown): string | null {
  const parsed = apiError.safeParse(body);
  return parsed.success ? parsed.data.error.code : null;
}

/** What the user can do about a refusal, where TikTok's own words do not say it. */
const hints: Record<string, string> = {
  privacy_level_option_mismatch: 'choose a privacy_level the account offers (see the creatorInfo tool)',
  unaudited_client_can_only_post_to_private_accounts:
    'until TikTok audits this app, posts must use privacy_level SELF_ONLY',
  url_ownership_unverified:
    'verify the domain of the media address (UPLOADS_PUBLIC_URL) in TikTok\'s developer portal',
  spam_risk_too_many_posts: 'the account reached its daily number of posts through the API; SPS tries again later',
  spam_risk_too_many_pending_share:
    'the account has 5 posts waiting in its TikTok inbox; SPS tries again once the creator handles them',
  scope_not_authorized: 'connect the account again and allow every permission SPS asks for',
  scope_permission_missed: 'connect the account again and allow every permission SPS asks for',
};

/** TikTok's message and code, and what to do where TikTok does not say it. */
export function tiktokErrorMessage(body: unknown): string | undefined {
  const parsed = apiError.safeParse(body);
  if (!parsed.success) return undefined;
  const { code, message } = parsed.data.error;
  const said = message === '' ? code : `${message} (${code})`;
  const hint = hints[code];
  return hint === undefined ? said : `${said}; ${hint}`;
}

/** The creator's caps and the app's user cap free up over a day: worth trying again, later. */
const dailyCaps = new Set(['spam_risk_too_many_posts', 'spam_risk_too_many_pending_share', 'reached_active_user_cap']);

const permanentCodes = new Set([
  'invalid_params', 'invalid_file_upload', 'privacy_level_option_mismatch', 'url_ownership_unverified',
  'unaudited_client_can_only_post_to_private_accounts', 'spam_risk_user_banned_from_posting', 'spam_risk_text',
  'spam_risk',
]);

/**
 * - access_token_invalid: the token expired (they last hours); the engine refreshes it once, and
 *   a refused refresh flags the channel.
 * - scope_not_authorized / scope_permission_missed: the user did not grant what the call needs;
 *   only connecting again can grant it.
 * - rate_limit_exceeded, the daily caps, internal_error: later.
 * - the request codes and the spam verdicts on the content: this post fails with TikTok's words
 *   (an unaudited app posting publicly included: the same body would be refused again).
 * Unknown codes fall back to the HTTP status.
 */
export function classifyTikTokError(_status: number, body: unknown): PlatformErrorKind | undefined {
  const code = tiktokErrorCode(body);
  if (code === null) return undefined;
  if (code === 'access_token_invalid') return 'refresh_token';
  if (code === 'scope_not_authorized' || code === 'scope_permission_missed') return 'disconnected';
  if (code === 'rate_limit_exceeded' || code === 'internal_error' || dailyCaps.has(code)) return 'retryable';
  if (permanentCodes.has(code)) return 'permanent';
  return undefined;
}

/** TikTok counts requests per minute per token. */
const minuteMs = 60_000;
/** A daily cap frees up as the oldest post of the last 24 hours ages out; an hour is a fair next look. */
const dailyCapWaitMs = 3600_000;

/**
 * TikTok sends no reset time (no Retry-After, no rate headers): a minute for its per-minute
 * limits, an hour for the daily caps. The publish worker caps the wait and the number of delays.
 */
export function tiktokRetryAfterMs(
  _status: number,
  _header: (name: string) => string | null,
  _now: number,
  body: unknown,
): number | null {
  const code = tiktokErrorCode(body);
  if (code === 'rate_limit_exceeded') return minuteMs;
  if (code !== null && dailyCaps.has(code)) return dailyCapWaitMs;
  return null;
}
