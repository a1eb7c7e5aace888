import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';

/**
 * Lemmy's refusals (open-and-community.md 7.5): `{"error": "<snake_case>", "message"?}`, HTTP 400
 * for almost everything in 0.19 (throttling included), 401 for incorrect_login, 404 for rows the
 * database does not have; 1.0 answers throttling with 429 `too_many_requests`. Uploads are
 * answered by the instance's pict-rs, whose refusals read `{"msg": "...", "code"?}`.
 */

/** Lemmy's codes say little to a person; these are the ones signing in and publishing meet. */
const explained: Record<string, string> = {
  incorrect_login: 'wrong username, email or password',
  missing_totp_token: 'this account uses two-factor authentication: fill in the current code',
  incorrect_totp_token: 'the two-factor code is wrong or expired',
  email_not_verified: 'the account\'s email address is not verified yet',
  registration_application_is_pending: 'the account is waiting for the instance admins to approve it',
  registration_denied: 'the instance admins denied this account',
  site_ban: 'the account is banned from this instance',
  deleted: 'it was deleted (the account, the community or the post)',
  not_logged_in:
    'the instance no longer accepts the session (logged out or password changed): connect the channel again',
  rate_limit_error: 'the instance\'s rate limit was reached',
  too_many_requests: 'the instance\'s rate limit was reached',
  couldnt_find_community: 'the community does not exist on this instance (check community_id)',
  banned_from_community: 'the account is banned from this community',
  only_mods_can_post_in_community: 'only moderators may post in this community',
  language_not_allowed: 'the community does not allow the post\'s language (language_id)',
  invalid_post_title: 'the title must be 3 to 200 characters on one line',
  invalid_body_field: 'the text is too long for Lemmy (posts 50,000 characters, comments 10,000)',
  invalid_url: 'the post\'s URL is not valid',
  alt_text_length_overflow: 'the alt text is longer than 1,500 characters',
  couldnt_find_post: 'the post to comment on no longer exists',
  couldnt_find_comment: 'the comment to reply to no longer exists',
  locked: 'the post is locked: it takes no new comments',
  couldnt_create_post: 'the instance could not create the post',
  couldnt_create_comment: 'the instance could not create the comment',
  couldnt_find_object: 'the instance could not find anything at this address',
};

const lemmyRefusal = z.object({ error: z.string(), message: z.string().optional() });
const pictrsRefusal = z.object({ msg: z.string(), code: z.string().optional() });

/** The code of a Lemmy refusal, or null for another shape (pict-rs, a proxy's HTML page). */
export function lemmyErrorCode(body: unknown): string | null {
  const parsed = lemmyRefusal.safeParse(body);
  return parsed.success ? parsed.data.error : null;
}

/** The refusal as a person reads it, the code kept so it can be looked up. */
export function lemmyErrorMessage(body: unknown): string | undefined {
  const lemmy = lemmyRefusal.safeParse(body);
  if (lemmy.success) {
    const { error, message } = lemmy.data;
    const reason = explained[error] ?? message;
    return reason === undefined ? `Lemmy: ${error}` : `Lemmy: ${reason} (${error})`;
  }
  const pictrs = pictrsRefusal.safeParse(body);
  if (pictrs.success) return `Lemmy's image server refused the file: ${pictrs.data.msg}`;
  return undefined;
}

const throttledCodes = new Set(['rate_limit_error', 'too_many_requests']);
/** The session is gone: SPS keeps no password to open another, so only the user can reconnect. */
const sessionCodes = new Set(['not_logged_in', 'incorrect_login', 'site_ban']);

export const isThrottled = (body: unknown): boolean => throttledCodes.has(lemmyErrorCode(body) ?? '');

/** Classification on Lemmy's code first: 0.19's HTTP 400 covers throttling and lost sessions too. */
export function classifyLemmyRefusal(_status: number, body: unknown): PlatformErrorKind | undefined {
  const code = lemmyErrorCode(body);
  if (code === null) return undefined;
  if (throttledCodes.has(code)) return 'retryable';
  if (sessionCodes.has(code)) return 'disconnected';
  return undefined;
}
