import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { oauthErrorMessage, readStandardTokens, refreshAccessToken } from '../kit/oauth2.ts';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { OAuthConnect, PlatformApp, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { encodeVkRefreshCredential, readVkRefreshCredential } from './credential.ts';

const provider = 'vk';

/** The profile (name, avatar) and posting to the wall with photos and videos. */
const scopes = ['vkid.personal_info', 'wall', 'photos', 'video'] as const;

/**
 * VK ID's token answer is RFC 6749's; what it lacks is the `device_id` every refresh must send,
 * which only the request carried (the redirect's, on the exchange; the held one, on a refresh).
 * The refresh token is kept as a document holding both.
 */
function readVkIdTokens(body: unknown, now: Date, sent: Readonly<Record<string, string>>): UserTokens | null {
  const tokens = readStandardTokens(body, now);
  if (tokens === null) return null;
  const deviceId = sent.device_id;
  return {
    ...tokens,
    refreshToken: tokens.refreshToken === null || deviceId === undefined
      ? null
      : encodeVkRefreshCredential({ refreshToken: tokens.refreshToken, deviceId }),
  };
}

/**
 * VK ID, OAuth 2.1 at id.vk.com: PKCE S256 with the client id alone at the token endpoint (no
 * secret), the redirect's `device_id` and the authorization's `state` sent on in the exchange.
 * Access tokens last an hour; refresh tokens rotate. Facts: open-and-community.md, section 5.1.
 */
function vkIdProvider(app: PlatformApp): OAuth2Provider {
  return {
    platform: provider,
    authorizeUrl: `${app.authUrl}/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth2/auth`,
    scopes,
    scopeSeparator: ' ',
    pkce: true,
    clientAuthentication: 'none',
    callbackParameters: ['device_id'],
    exchangeWithState: true,
    readTokens: readVkIdTokens,
    refreshable: true,
  };
}

const userInfo = z.object({
  user: z.object({
    // A string in VK ID's answers; a number would name the same user.
    user_id: z.union([z.string().min(1), z.number().int()]),
    first_name: z.string(),
    last_name: z.string(),
    avatar: z.string().optional(),
  }),
});

const refusal = z.object({ error: z.string() }).loose();

function clientIdOf(app: PlatformApp): string {
  if (app.clientId === null) {
    throw new PlatformError({ kind: 'retryable', provider, message: 'VK_CLIENT_ID is not set' });
  }
  return app.clientId;
}

export const vkConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: vkIdProvider,

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider,
      serverName: 'VK ID',
      method: 'POST',
      // VK ID's host, where the token came from (VK_TOKEN_URL); VK_API_URL is api.vk.com's.
      url: `${context.app.tokenUrl}/oauth2/user_info`,
      // In the form, as VK ID asks, so the token stays out of the query string and access logs.
      form: { client_id: clientIdOf(context.app), access_token: tokens.accessToken },
      timeoutMs: context.timeoutMs,
      errorMessage: oauthErrorMessage,
      classify: (_status, answer) => {
        const refused = refusal.safeParse(answer);
        return refused.success && refused.data.error === 'invalid_token' ? 'disconnected' : undefined;
      },
    });
    const parsed = userInfo.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(provider, 'VK ID answered with a profile', { cause: parsed.error });
    }
    const { user } = parsed.data;
    return {
      pick: false,
      accounts: [{
        accountId: String(user.user_id),
        name: `${user.first_name} ${user.last_name}`.trim(),
        // VK ID's user_info names no screen name; the wall is addressed by the id.
        username: null,
        picture: user.avatar === undefined || user.avatar === '' ? null : user.avatar,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    };
  },

  /**
   * VK ID's refresh grant needs the device id the authorization named and a state, beside the
   * refresh token; the renewed refresh token is kept with the same device id.
   */
  async refresh(refreshToken, context) {
    const held = readVkRefreshCredential(refreshToken);
    const client = { clientId: clientIdOf(context.app), clientSecret: context.app.clientSecret };
    const options = { timeoutMs: context.timeoutMs, now: context.now?.() };
    const parameters = { device_id: held.deviceId, state: randomBytes(16).toString('base64url') };
    const renewed = await refreshAccessToken(vkIdProvider(context.app), client, held.refreshToken, options, parameters);
    // VK ID rotates refresh tokens; an answer without one leaves the document held valid.
    const kept = renewed.refreshToken === held.refreshToken;
    return { ...renewed, refreshToken: kept ? refreshToken : renewed.refreshToken };
  },
};
