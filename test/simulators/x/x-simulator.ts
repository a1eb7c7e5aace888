import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for X's OAuth 2.0 endpoints and `GET /2/users/me`, refusing what X refuses:
 * PKCE S256 on every authorization, HTTP Basic client authentication (confidential clients),
 * space-separated scopes, two-hour access tokens, refresh tokens only with `offline.access`,
 * rotated on every refresh. Token refusals in X's words (`invalid_request` "Value passed for ...
 * was invalid.", 401 `unauthorized_client` "Missing valid authorization header"); API refusals as
 * problem details `{title, detail, type, status}`.
 * Facts: ../shared/platforms/oauth-majors.md, section 1 (X).
 */
export interface SimulatedXUser {
  id: string;
  name: string;
  username: string;
  profile_image_url: string;
}

export interface XSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** Registers a user; `authority.consentingUser = user.id` makes them the next to consent. */
  addUser(user: SimulatedXUser): void;
}

const clientId = 'x-client-id';
const clientSecret = 'x-client-secret';

/** Scopes X documents for OAuth 2.0 user context (a subset is enough to refuse typos). */
const knownScopes = [
  'tweet.read', 'tweet.write', 'tweet.moderate.write', 'users.read', 'users.email', 'follows.read', 'follows.write',
  'offline.access', 'space.read', 'mute.read', 'mute.write', 'like.read', 'like.write', 'list.read', 'list.write',
  'block.read', 'block.write', 'bookmark.read', 'bookmark.write', 'media.write', 'dm.read', 'dm.write',
];

const problemTypes = 'https://api.x.com/2/problems';

function problem(status: number, title: string, detail: string, type = 'about:blank'): SimulatedAnswer {
  return { status, body: { title, detail, type, status } };
}

/** X's token endpoint words its refusals its own way: a bad code or token is `invalid_request`. */
function tokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') {
    const body = { error: 'unauthorized_client', error_description: 'Missing valid authorization header' };
    return { status: 401, body };
  }
  if (error === 'invalid_grant') {
    const what = /refresh token/i.test(description) ? 'token' : 'authorization code';
    const body = { error: 'invalid_request', error_description: `Value passed for the ${what} was invalid.` };
    return { status: 400, body };
  }
  return { status: 400, body: { error, error_description: description } };
}

/** Without `offline.access` X sends no refresh token. */
function tokenAnswer(tokens: IssuedTokens): unknown {
  const offline = tokens.scope.split(' ').includes('offline.access');
  return {
    token_type: 'bearer',
    expires_in: tokens.expiresIn,
    access_token: tokens.accessToken,
    scope: tokens.scope,
    ...(offline && tokens.refreshToken !== null ? { refresh_token: tokens.refreshToken } : {}),
  };
}

export async function startXSimulator(): Promise<XSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic',
    requirePkce: true,
    knownScopes,
    accessTokenSeconds: 7200,
    refreshTokens: 'rotate',
    // X's authorization codes live 30 seconds.
    codeSeconds: 30,
    tokenError,
    tokenAnswer,
  });
  const users = new Map<string, SimulatedXUser>();

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/i/oauth2/authorize') return authority.authorize(request);
    if (request.path === '/2/oauth2/token') return authority.token(request);
    if (request.method === 'GET' && request.path === '/2/users/me') {
      const user = users.get(authority.userOf(bearerToken(request)) ?? '');
      if (user === undefined) return problem(401, 'Unauthorized', 'Unauthorized');
      // Fields beyond id, name and username come only when user.fields asks for them.
      const fields = (request.query.get('user.fields') ?? '').split(',');
      const data: Record<string, string> = { id: user.id, name: user.name, username: user.username };
      if (fields.includes('profile_image_url')) data.profile_image_url = user.profile_image_url;
      return { status: 200, body: { data } };
    }
    return undefined;
  }, problem(404, 'Not Found Error', 'Sorry, that page does not exist.', `${problemTypes}/resource-not-found`));

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(user.id, user); },
  };
}
