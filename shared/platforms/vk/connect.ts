import { z } from 'zod';
import type { OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';

const provider = 'vk';

/** The API version every call names; VK answers older shapes to older versions. */
const apiVersion = '5.199';

/**
 * Post to the wall with photos and videos; `offline` makes the token last until revoked, since
 * this flow has no refresh token.
 */
const scopes = ['wall', 'photos', 'video', 'offline'] as const;

/** oauth.vk.com's token answer: `expires_in` is 0 for an `offline` token, which never expires. */
const tokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().nonnegative().optional(),
});

function readVkTokens(body: unknown, now: Date): UserTokens | null {
  const parsed = tokenAnswer.safeParse(body);
  if (!parsed.success) return null;
  const expiresIn = parsed.data.expires_in ?? 0;
  return {
    accessToken: parsed.data.access_token,
    refreshToken: null,
    expiresAt: expiresIn === 0 ? null : new Date(now.getTime() + expiresIn * 1000),
  };
}

/** VK API errors come with HTTP 200: `{error: {error_code, error_msg}}`. */
const apiError = z.object({ error: z.object({ error_code: z.number().int(), error_msg: z.string() }) });

/** 5: the token is invalid or revoked; 3610: the user's page is deactivated. */
const deadToken = new Set([5, 3610]);

const usersGet = z.object({
  response: z.array(z.object({
    id: z.number().int(),
    first_name: z.string(),
    last_name: z.string(),
    screen_name: z.string().optional(),
    photo_200: z.string().optional(),
  })).min(1),
});

/**
 * VK ID (OAuth 2.1 at id.vk.com) is VK's current sign-in, but it needs the `device_id` VK adds
 * to the redirect in the code exchange and in every refresh, which the kit's callback does not
 * pass on. The older authorization-code flow at oauth.vk.com, still documented and answered,
 * needs nothing beyond RFC 6749 and gives a token that does not expire.
 */
export const vkConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform: provider,
    authorizeUrl: `${app.authUrl}/authorize`,
    tokenUrl: `${app.tokenUrl}/access_token`,
    scopes,
    scopeSeparator: ',',
    pkce: false,
    clientAuthentication: 'body',
    authorizeParameters: { display: 'page', v: apiVersion },
    readTokens: readVkTokens,
    refreshable: false,
  }),

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider,
      serverName: 'VK',
      method: 'POST',
      url: `${context.app.apiUrl}/method/users.get`,
      // In the form, not the query string, so the token stays out of access logs.
      form: { access_token: tokens.accessToken, v: apiVersion, fields: 'photo_200,screen_name' },
      timeoutMs: context.timeoutMs,
    });
    const refused = apiError.safeParse(body);
    if (refused.success) {
      const { error_code: code, error_msg: message } = refused.data.error;
      throw new PlatformError({ kind: deadToken.has(code) ? 'disconnected' : 'permanent', provider, message });
    }
    const parsed = usersGet.safeParse(body);
    if (!parsed.success) {
      const message = 'VK answered with a profile SPS could not read';
      throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
    }
    const [user] = parsed.data.response;
    if (user === undefined) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'VK answered with no user' });
    }
    return {
      pick: false,
      accounts: [{
        accountId: String(user.id),
        name: `${user.first_name} ${user.last_name}`.trim(),
        username: user.screen_name ?? null,
        picture: user.photo_200 ?? null,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: null,
        expiresAt: tokens.expiresAt,
      }],
    };
  },
};
