import { z } from 'zod';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';

/**
 * Google's OAuth 2.0 for web server applications, which YouTube and Google Business Profile
 * share: one consent page, one token endpoint, the client's id and secret in the token form.
 * Facts: /work/shared/platforms/oauth-majors.md 7.1, design-blogging-business.md 7.1.
 */
export const googleUrls = { authUrl: 'https://accounts.google.com', tokenUrl: 'https://oauth2.googleapis.com' };

export function googleOAuthProvider(platform: string, app: PlatformApp, scopes: readonly string[]): OAuth2Provider {
  return {
    platform,
    authorizeUrl: `${app.authUrl}/o/oauth2/v2/auth`,
    tokenUrl: `${app.tokenUrl}/token`,
    scopes,
    pkce: true,
    clientAuthentication: 'body',
    // Google issues a refresh token only for offline access, and on a reconnect only when the
    // consent screen is shown again.
    authorizeParameters: { access_type: 'offline', prompt: 'consent' },
    // Access tokens last an hour; the refresh token is not rotated (Google sends none back).
    refreshable: true,
  };
}

/** Google APIs answer errors as `{error: {code, message, status, errors: [{reason}]}}`. */
const googleError = z.object({
  error: z.object({
    message: z.string(),
    status: z.string().optional(),
    errors: z.array(z.object({ reason: z.string().optional(), domain: z.string().optional() }).loose()).optional(),
  }),
});

/** The `reason` of each item of `error.errors[]` (`quotaExceeded`, `authError`...): what Google's refusals mean. */
export function googleErrorReasons(body: unknown): string[] {
  const parsed = googleError.safeParse(body);
  if (!parsed.success) return [];
  return (parsed.data.error.errors ?? []).flatMap((item) => (item.reason === undefined ? [] : [item.reason]));
}

export function googleApiErrorMessage(body: unknown): string | undefined {
  const parsed = googleError.safeParse(body);
  if (!parsed.success) return undefined;
  const { message, status } = parsed.data.error;
  return status === undefined ? message : `${message} (${status})`;
}
