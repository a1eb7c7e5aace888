import { randomBytes } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * TikTok API v2's answer envelope: `{data, error: {code, message, log_id}}` on every answer, with
 * `code: "ok"` on success (oauth-majors.md 8.5). Post ids are int64 JSON numbers, which
 * JSON.stringify cannot write exactly: values given as bigint are written as bare digits.
 */

export const logId = (): string => `2026112400000${randomBytes(8).toString('hex').toUpperCase()}`;

export function tiktokError(status: number, code: string, message: string): SimulatedAnswer {
  return { status, body: { data: {}, error: { code, message, log_id: logId() } } };
}

const int64Marker = '__int64:';

/** JSON text with every bigint written as a bare integer, as TikTok writes int64 fields. */
function jsonWithInt64(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? `${int64Marker}${item.toString()}` : item);
  return text.replace(new RegExp(`"${int64Marker}(-?\\d+)"`, 'g'), '$1');
}

function holdsBigint(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsBigint);
}

/**
 * A success in TikTok's envelope. Written as JSON text only where an int64 needs it: the
 * simulator kit checks answers given as values against TikTok's operations, not text.
 */
export function tiktokData(data: unknown, status = 200): SimulatedAnswer {
  const body = { data, error: { code: 'ok', message: '', log_id: logId() } };
  if (!holdsBigint(body)) return { status, body };
  return { status, body: jsonWithInt64(body), headers: { 'content-type': 'application/json; charset=utf-8' } };
}

/** TikTok's words for its refusals, as its reference pages give them (ours where they give none). */
export const refusals = {
  tokenInvalid: () => tiktokError(401, 'access_token_invalid',
    'The access token is invalid or not found in the request.'),
  scopeMissing: (scope: string) => tiktokError(401, 'scope_not_authorized',
    `The user did not authorize the scope required for completing this request (${scope}).`),
  rateLimited: () => tiktokError(429, 'rate_limit_exceeded',
    'API rate limit was exceeded, please try again later.'),
  invalidParams: (message: string) => tiktokError(400, 'invalid_params', message),
  privacyMismatch: (given: string, options: readonly string[]) => tiktokError(400, 'privacy_level_option_mismatch',
    `privacy_level ${given} is not one of the creator's privacy_level_options (${options.join(', ')}).`),
  unaudited: () => tiktokError(403, 'unaudited_client_can_only_post_to_private_accounts',
    'Unaudited clients can only post to private accounts: use privacy_level SELF_ONLY.'),
  tooManyPosts: () => tiktokError(403, 'spam_risk_too_many_posts',
    'The user has reached the daily limit of posts made through the API.'),
  tooManyPending: () => tiktokError(403, 'spam_risk_too_many_pending_share',
    'The user already has 5 posts waiting in their inbox from the last 24 hours.'),
  urlUnverified: (url: string) => tiktokError(400, 'url_ownership_unverified',
    `The domain or URL prefix of ${url} has not been verified for this app.`),
  notFound: () => tiktokError(404, 'invalid_params', 'The requested API does not exist.'),
} as const;
