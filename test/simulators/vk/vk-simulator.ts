import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  formBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for VK's older OAuth (oauth.vk.com, authorization-code flow for sites) and
 * the API method connecting reads:
 * - `GET /authorize` with comma-separated scope names, no PKCE;
 * - `POST /access_token` with client_id and client_secret in the form, answering
 *   `{access_token, expires_in, user_id}` with `expires_in: 0` for an `offline` token; no refresh;
 *   refusals `{error, error_description}` (`invalid_client`: 401, others 400);
 * - api.vk.com `POST /method/users.get` (form: access_token, v, fields), answering
 *   `{response: [user]}` or, with HTTP 200, `{error: {error_code, error_msg, request_params}}`:
 *   5 for an unknown or revoked token, 8 when `v` is missing.
 * Facts: /work/shared/platforms/open-and-community.md 5.1 and 5.5; dev.vk.com authcode-flow-user.
 */
export interface SimulatedVkUser {
  id: number;
  firstName: string;
  lastName: string;
  screenName: string;
  photo200: string;
}

export interface RunningVkSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
}

const clientId = '51234567';
const clientSecret = 'vkSimulatedSecretKey';

function vkTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') {
    return { status: 401, body: { error, error_description: 'client_secret is incorrect' } };
  }
  if (error === 'invalid_grant' && /authorization code/i.test(description)) {
    return { status: 400, body: { error, error_description: 'Code is invalid or expired.' } };
  }
  return { status: 400, body: { error, error_description: description } };
}

const apiError = (code: number, message: string, method: string): SimulatedAnswer => ({
  status: 200,
  body: { error: { error_code: code, error_msg: message, request_params: [{ key: 'method', value: method }] } },
});

/** Users are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startVkSimulator(users: Record<string, SimulatedVkUser>): Promise<RunningVkSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes: ['wall', 'photos', 'video', 'docs', 'groups', 'offline', 'email', 'stats'],
    scopeSeparator: ',',
    // An offline token lasts until revoked: ten years stands for that here.
    accessTokenSeconds: 10 * 365 * 86_400,
    refreshTokens: 'none',
    tokenError: vkTokenError,
    tokenAnswer: (tokens) => ({
      access_token: tokens.accessToken,
      expires_in: tokens.scope.split(' ').includes('offline') ? 0 : 86_400,
      user_id: users[authority.userOf(tokens.accessToken) ?? '']?.id ?? 0,
    }),
  });

  const notFound: SimulatedAnswer = { status: 404, body: 'Not Found' };
  const server = await startSimulatorServer((request) => {
    if (request.path === '/authorize' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/access_token') return authority.token(request);
    if (request.path !== '/method/users.get') return notFound;
    const parameters = request.method === 'POST' ? formBody(request) : request.query;
    if (parameters.get('v') === null) return apiError(8, 'Invalid request: v (version) is required', 'users.get');
    const user = users[authority.userOf(parameters.get('access_token')) ?? ''];
    if (user === undefined) return apiError(5, 'User authorization failed: invalid access_token (4).', 'users.get');
    const fields = (parameters.get('fields') ?? '').split(',');
    const profile = {
      id: user.id,
      first_name: user.firstName,
      last_name: user.lastName,
      can_access_closed: true,
      is_closed: false,
      ...(fields.includes('screen_name') ? { screen_name: user.screenName } : {}),
      ...(fields.includes('photo_200') ? { photo_200: user.photo200 } : {}),
    };
    return { status: 200, body: { response: [profile] } };
  }, notFound);
  return { ...server, authority, clientId, clientSecret };
}
