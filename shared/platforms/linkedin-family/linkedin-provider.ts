import { z } from 'zod';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';

/**
 * LinkedIn's 3-legged OAuth 2.0, shared by member accounts and Pages (one app, scopes differ).
 * The web flow is a confidential client: id and secret in the token form. PKCE is left out on
 * purpose: LinkedIn offers it only to native apps on loopback redirects, enabled per app by
 * LinkedIn. Access tokens live 60 days; only apps approved for programmatic refresh tokens
 * (Marketing Developer Platform partners) get a refresh token, so `refreshable` says the
 * platform can renew: where no refresh token came, the channel asks for reconnection instead.
 * Facts: ../shared/platforms/oauth-majors.md, section 2.
 */
export function linkedinProvider(app: PlatformApp, platform: string, scopes: readonly string[]): OAuth2Provider {
  return {
    platform,
    authorizeUrl: `${app.authUrl}/oauth/v2/authorization`,
    tokenUrl: `${app.tokenUrl}/oauth/v2/accessToken`,
    scopes,
    pkce: false,
    clientAuthentication: 'body',
    refreshable: true,
  };
}

/**
 * The versioned API's month (LinkedIn-Version on every /rest call). LinkedIn keeps a version
 * about a year and answers 426 NONEXISTENT_VERSION after: moving it is a one-line change here.
 */
export const linkedinVersion = '202601';

/** Headers every versioned (/rest) call carries. */
export function linkedinRestHeaders(accessToken: string): Record<string, string> {
  return {
    Authorization: `Bearer ${accessToken}`,
    'LinkedIn-Version': linkedinVersion,
    'X-Restli-Protocol-Version': '2.0.0',
  };
}

const apiErrorBody = z.object({ message: z.string() }).loose();

/** LinkedIn's API refusals: `{status, serviceErrorCode, code, message}`. */
export function linkedinErrorMessage(body: unknown): string | undefined {
  const parsed = apiErrorBody.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
}
