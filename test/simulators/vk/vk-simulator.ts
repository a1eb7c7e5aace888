import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  formBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for VK ID (OAuth 2.1 at id.vk.com) and the API method publishing reads:
 * - `GET /authorize` with space-separated scopes and PKCE S256 required; the redirect back
 *   carries `code`, `state`, `device_id`, `type=code_v2` and `expires_in`;
 * - `POST /oauth2/auth` as a public client (client_id alone, no secret), the code exchange
 *   needing code_verifier, the redirect's `device_id` and the authorization's `state`; a refresh
 *   needing the refresh token's `device_id` and a `state`. Access tokens last an hour; refresh
 *   tokens rotate. Answers `{access_token, refresh_token, id_token, token_type, expires_in,
 *   user_id, state, scope}`; refusals `{error, error_description, state}`;
 * - `POST /oauth2/user_info` (form: client_id, access_token) answering `{user: {user_id,
 *   first_name, last_name, avatar, ...}}`, or 401 `{error: 'invalid_token', ...}` for an unknown
 *   or expired token;
 * - api.vk.com `POST /method/users.get` (form: access_token, v, fields), answering
 *   `{response: [user]}` or, with HTTP 200, `{error: {error_code, error_msg, request_params}}`.
 * Facts: /work/shared/platforms/open-and-community.md 5.1; id.vk.com VK ID API description.
 */
export interface SimulatedVkUser {
  id: number;
  firstName: string;
  lastName: string;
  screenName: string;
  /** The profile picture: `avatar` in VK ID's user_info, `photo_200` in users.get. */
  photo200: string;
}

export interface RunningVkSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
}

const clientId = '51234567';
/** VK apps have a protected key, but VK ID's exchange with PKCE never asks for it. */
const clientSecret = 'vkSimulatedSecretKey';

const vkIdScopes = [
  'vkid.personal_info', 'email', 'phone', 'friends', 'wall', 'groups', 'stories', 'docs', 'photos', 'ads', 'video',
  'status', 'market', 'pages', 'notifications', 'stats',
];

const apiError = (code: number, message: string, method: string): SimulatedAnswer => ({
  status: 200,
  body: { error: { error_code: code, error_msg: message, request_params: [{ key: 'method', value: method }] } },
});

/** VK ID echoes the request's `state` in every token answer, refusals included. */
function withState(answer: SimulatedAnswer, request: SimulatedRequest): SimulatedAnswer {
  const state = request.method === 'POST' ? formBody(request).get('state') : null;
  if (state === null || typeof answer.body !== 'object' || answer.body === null) return answer;
  return { ...answer, body: { ...answer.body, state } };
}

/** VK ID's redirect also says which kind of code it is and how long it lasts. */
function withCodeType(answer: SimulatedAnswer): SimulatedAnswer {
  const location = answer.headers?.location;
  if (location === undefined) return answer;
  const back = new URL(location);
  if (back.searchParams.get('code') === null) return answer;
  back.searchParams.set('type', 'code_v2');
  back.searchParams.set('expires_in', '600');
  return { ...answer, headers: { ...answer.headers, location: back.toString() } };
}

/** Users are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startVkSimulator(users: Record<string, SimulatedVkUser>): Promise<RunningVkSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'none',
    requirePkce: true,
    knownScopes: vkIdScopes,
    scopeSeparator: ' ',
    boundParameters: ['device_id'],
    stateAtTokenEndpoint: true,
    accessTokenSeconds: 3_600,
    refreshTokens: 'rotate',
    tokenAnswer: (tokens) => ({
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      id_token: `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(tokens.accessToken).toString('base64url')}.c2ln`,
      token_type: 'Bearer',
      expires_in: tokens.expiresIn,
      user_id: users[authority.userOf(tokens.accessToken) ?? '']?.id ?? 0,
      scope: tokens.scope,
    }),
  });

  const userInfo = (request: SimulatedRequest): SimulatedAnswer => {
    if (request.method !== 'POST') return { status: 405, body: { error: 'invalid_request' } };
    const form = formBody(request);
    if (form.get('client_id') !== clientId) {
      return { status: 400, body: { error: 'invalid_client', error_description: 'client_id is invalid' } };
    }
    const user = users[authority.userOf(form.get('access_token')) ?? ''];
    if (user === undefined) {
      return { status: 401, body: { error: 'invalid_token', error_description: 'access_token is missing or invalid' } };
    }
    const profile = {
      user_id: String(user.id),
      first_name: user.firstName,
      last_name: user.lastName,
      avatar: user.photo200,
      sex: 0,
      verified: false,
      birthday: '',
    };
    return { status: 200, body: { user: profile } };
  };

  const usersGet = (request: SimulatedRequest): SimulatedAnswer => {
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
  };

  const notFound: SimulatedAnswer = { status: 404, body: 'Not Found' };
  const server = await startSimulatorServer((request) => {
    if (request.path === '/authorize' && request.method === 'GET') return withCodeType(authority.authorize(request));
    if (request.path === '/oauth2/auth') return withState(authority.token(request), request);
    if (request.path === '/oauth2/user_info') return userInfo(request);
    if (request.path === '/method/users.get') return usersGet(request);
    return notFound;
  }, notFound);
  return { ...server, authority, clientId, clientSecret };
}
