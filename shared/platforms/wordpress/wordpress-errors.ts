import { z } from 'zod';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { kindForStatus } from '../kit/platform-http.ts';

/**
 * WordPress's refusals (design-blogging-business.md 6.5): a JSON body `{code, message, data:
 * {status}}`. The code decides, the status only where the code is shared: WordPress answers 401
 * for "nobody is signed in" and 403 for "this user may not", with the same rest_cannot_* codes.
 */
export const wordpressErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  data: z.object({ status: z.number().optional(), term_id: z.number().int().optional() }).loose().nullish(),
});

export type WordpressErrorBody = z.infer<typeof wordpressErrorBody>;

export function readWordpressError(body: unknown): WordpressErrorBody | null {
  const parsed = wordpressErrorBody.safeParse(body);
  return parsed.success ? parsed.data : null;
}

/** Codes that mean the stored credential no longer signs anyone in. */
const signInRefusals = new Set([
  'incorrect_password', 'invalid_username', 'invalid_email', 'rest_not_logged_in',
  // The site turned application passwords off (a plugin, or no https): the channel cannot work.
  'application_passwords_disabled',
]);

/** Upload refusals of the file itself (type, size, quota): sending the same file cannot succeed. */
const uploadRefusals = /^rest_upload_(?!unknown_error$)/;

export function classifyWordpressRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  const error = readWordpressError(body);
  if (error === null) return undefined;
  if (signInRefusals.has(error.code)) return 'disconnected';
  // WordPress answers rest_cannot_create and its kin with 401 when no one signed in: a wrong or revoked password.
  if (status === 401) return 'disconnected';
  if (uploadRefusals.test(error.code)) return 'permanent';
  return kindForStatus(status);
}

/**
 * WordPress's own message. WordPress 6.1 reports a wrong or revoked application password as
 * "not logged in" or "not allowed ... as this user" (the password check runs after the REST
 * server looked for errors), so a 401 gets a hint of the likely cause after WordPress's words.
 */
export function wordpressErrorMessage(body: unknown): string | undefined {
  const error = readWordpressError(body);
  if (error === null) return undefined;
  const status = error.data?.status;
  if (error.code === 'rest_not_logged_in' || (status === 401 && error.code.startsWith('rest_'))) {
    return `${error.message} (WordPress signed no one in with the application password: it may be `
      + 'wrong or revoked, the server may strip the Authorization header, or application passwords may be turned off)';
  }
  return error.message;
}
