import { z } from 'zod';
import type { OAuthConnect } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';

/**
 * Dribbble (API v2) keeps the v1 OAuth flow: client id and secret in the token form, scopes
 * `public` (read the profile) and `upload` (post shots), access tokens that do not expire and
 * no refresh token. Facts: ../shared/platforms/design-blogging-business.md, section 2.
 */
const errorBody = z.object({ message: z.string() }).loose();

function dribbbleErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
}

const user = z.object({
  id: z.union([z.number(), z.string()]),
  name: z.string().optional().nullable(),
  login: z.string().min(1),
  avatar_url: z.string().optional().nullable(),
  can_upload_shot: z.boolean().optional(),
});

export const dribbbleConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: (app) => ({
    platform: 'dribbble',
    authorizeUrl: `${app.authUrl}/oauth/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth/token`,
    scopes: ['public', 'upload'],
    // Dribbble documents no PKCE.
    pkce: false,
    clientAuthentication: 'body',
    refreshable: false,
  }),

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider: 'dribbble',
      method: 'GET',
      url: `${context.app.apiUrl}/v2/user`,
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      errorMessage: dribbbleErrorMessage,
    });
    const parsed = user.safeParse(body);
    if (!parsed.success) {
      const message = 'Dribbble answered /v2/user without a user';
      throw new PlatformError({ kind: 'permanent', provider: 'dribbble', message });
    }
    const profile = parsed.data;
    // Only players allowed to upload can post shots: a channel for anyone else could never publish.
    if (profile.can_upload_shot === false) {
      const message = `the Dribbble account ${profile.login} cannot upload shots`;
      throw new PlatformError({ kind: 'permanent', provider: 'dribbble', message });
    }
    return {
      pick: false,
      accounts: [{
        accountId: String(profile.id),
        name: profile.name === undefined || profile.name === null || profile.name === '' ? profile.login : profile.name,
        username: profile.login,
        picture: profile.avatar_url ?? null,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: null,
        expiresAt: null,
      }],
    };
  },
};
