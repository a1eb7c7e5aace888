import { randomBytes } from 'node:crypto';
import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for TikTok's Login Kit (web) and the profile read of API v2:
 * - www.tiktok.com `GET /v2/auth/authorize/` with `client_key` (not client_id), comma-separated
 *   scopes, no PKCE (the web flow has none);
 * - open.tiktokapis.com `POST /v2/oauth/token/` with client_key and client_secret in the form,
 *   answering `{access_token, expires_in: 86400, open_id, refresh_token, refresh_expires_in,
 *   scope, token_type}`; refresh tokens rotate (the old one is refused once used); refusals are
 *   `{error, error_description, log_id}` sent with HTTP 200, as TikTok's token endpoint does;
 * - open.tiktokapis.com `GET /v2/user/info/?fields=...` with a Bearer token, answering only the
 *   fields asked for, `{data: {user}, error: {code: "ok"}}`, and 401 `access_token_invalid`
 *   for an unknown or expired token.
 * Facts: /work/shared/platforms/oauth-majors.md 8.1 and 8.5.
 */
export interface SimulatedTikTokUser {
  openId: string;
  unionId: string;
  displayName: string;
  username: string;
  avatarUrl: string;
}

export interface RunningTikTokSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
}

const clientId = 'awsimulatedclientkey';
const clientSecret = 'simulated-client-secret';

const logId = (): string => `2026112400000${randomBytes(8).toString('hex').toUpperCase()}`;

function apiError(status: number, code: string, message: string): SimulatedAnswer {
  return { status, body: { data: {}, error: { code, message, log_id: logId() } } };
}

const notFound = apiError(404, 'invalid_params', 'The requested API does not exist.');

const userFields = ['open_id', 'union_id', 'avatar_url', 'display_name', 'username'] as const;

function userInfo(request: SimulatedRequest, user: SimulatedTikTokUser): SimulatedAnswer {
  const fields = (request.query.get('fields') ?? '').split(',').filter((field) => field !== '');
  const unknown = fields.filter((field) => !(userFields as readonly string[]).includes(field));
  if (fields.length === 0 || unknown.length > 0) {
    return apiError(400, 'invalid_params', `Invalid fields: ${unknown.join(',') || '(none)'}`);
  }
  const values: Record<(typeof userFields)[number], string> = {
    open_id: user.openId,
    union_id: user.unionId,
    avatar_url: user.avatarUrl,
    display_name: user.displayName,
    username: user.username,
  };
  const answered = Object.fromEntries(fields.map((field) => [field, values[field as keyof typeof values]]));
  return { status: 200, body: { data: { user: answered }, error: { code: 'ok', message: '', log_id: logId() } } };
}

/** Users are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startTikTokSimulator(
  users: Record<string, SimulatedTikTokUser>,
): Promise<RunningTikTokSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientIdParameter: 'client_key',
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes: [
      'user.info.basic', 'user.info.profile', 'user.info.stats', 'video.list', 'video.publish', 'video.upload',
    ],
    scopeSeparator: ',',
    accessTokenSeconds: 86_400,
    refreshTokens: 'rotate',
    tokenError: (error, description) => ({
      status: 200,
      body: { error, error_description: description, log_id: logId() },
    }),
    tokenAnswer: (tokens) => ({
      access_token: tokens.accessToken,
      expires_in: tokens.expiresIn,
      open_id: users[authority.userOf(tokens.accessToken) ?? '']?.openId ?? '',
      refresh_token: tokens.refreshToken,
      refresh_expires_in: 31_536_000,
      scope: tokens.scope.split(' ').join(','),
      token_type: 'Bearer',
    }),
  });

  const server = await startSimulatorServer((request) => {
    if (request.path === '/v2/auth/authorize/' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/v2/oauth/token/') return authority.token(request);
    if (request.path === '/v2/user/info/' && request.method === 'GET') {
      const user = users[authority.userOf(bearerToken(request)) ?? ''];
      if (user === undefined) {
        return apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
      }
      return userInfo(request, user);
    }
    return notFound;
  }, notFound);
  return { ...server, authority, clientId, clientSecret };
}
