import { z } from 'zod';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { tiktokErrorMessage } from './tiktok-errors.ts';

const provider = 'tiktok';

/**
 * Profile (user.info.basic: open id, avatar, display name; user.info.profile: the username the
 * video URLs use), both ways of publishing (video.publish: direct post; video.upload: upload to
 * the creator's inbox) and the analytics reads (user.info.stats: the account's counters;
 * video.list: its posts' counters and the recent posts to pick a missing release from).
 */
const scopes = [
  'user.info.basic', 'user.info.profile', 'user.info.stats', 'video.list', 'video.publish', 'video.upload',
] as const;

/** TikTok's OAuth refusal `{error, error_description, log_id}`, sent with HTTP 200 as well. */
const tokenRefusal = z.object({ error: z.string().min(1), error_description: z.string().optional() });

/** Refusals that mean the refresh token (or the grant behind it) is dead, as RFC 6749 5.2 names them. */
const deadGrant = new Set(['invalid_grant', 'unauthorized_client', 'invalid_client']);

/**
 * TikTok's token answer is RFC 6749's plus `open_id`; its refusals can come with HTTP 200, so a
 * body carrying `error` is a refusal whatever the status.
 */
function readTikTokTokens(body: unknown, now: Date): UserTokens | null {
  const refused = tokenRefusal.safeParse(body);
  if (refused.success) {
    const { error, error_description: description } = refused.data;
    const message = description === undefined || description === '' ? error : `${description} (${error})`;
    throw new PlatformError({ kind: deadGrant.has(error) ? 'disconnected' : 'permanent', provider, message });
  }
  return readStandardTokens(body, now);
}

/** GET /v2/user/info/: `{data: {user}, error: {code: "ok"}}`. */
const userInfo = z.object({
  data: z.object({
    user: z.object({
      open_id: z.string().min(1),
      display_name: z.string().optional(),
      username: z.string().optional(),
      avatar_url: z.string().optional(),
    }),
  }),
});

export const tiktokConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform: provider,
    authorizeUrl: `${app.authUrl}/v2/auth/authorize/`,
    tokenUrl: `${app.tokenUrl}/v2/oauth/token/`,
    scopes,
    scopeSeparator: ',',
    // PKCE belongs to TikTok's desktop and mobile flows (with a hex-encoded challenge on
    // desktop); the web flow SPS runs authenticates with the client secret and takes no verifier.
    pkce: false,
    clientAuthentication: 'body',
    clientIdParameter: 'client_key',
    readTokens: readTikTokTokens,
    // Access tokens last a day or less; each refresh issues a new refresh token.
    refreshable: true,
  }),

  async accounts(tokens, context) {
    const url = new URL(`${context.app.apiUrl}/v2/user/info/`);
    url.searchParams.set('fields', 'open_id,union_id,avatar_url,display_name,username');
    const body = await platformRequest({
      provider,
      serverName: 'TikTok',
      method: 'GET',
      url: url.toString(),
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      errorMessage: tiktokErrorMessage,
    });
    const parsed = userInfo.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(provider, 'TikTok answered with a profile', { cause: parsed.error });
    }
    const user = parsed.data.data.user;
    const username = user.username === undefined || user.username === '' ? null : user.username;
    return {
      pick: false,
      accounts: [{
        accountId: user.open_id,
        name: user.display_name ?? username ?? user.open_id,
        username,
        picture: user.avatar_url ?? null,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    };
  },
};
