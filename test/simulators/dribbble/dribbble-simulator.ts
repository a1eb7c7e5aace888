import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Dribbble's OAuth endpoints (dribbble.com/oauth) and `GET /v2/user` on
 * api.dribbble.com: client id and secret in the token form, space-separated scopes (`public`,
 * `upload`), access tokens that never expire and no refresh token. Token refusals follow RFC
 * 6749 in Doorkeeper's words; the API answers an unknown token 401 `{"message": ...}` (the status
 * is documented, the exact words are not).
 * Facts: ../shared/platforms/design-blogging-business.md, section 2 (Dribbble).
 */
export interface SimulatedDribbbleUser {
  id: number;
  name: string;
  login: string;
  avatar_url: string;
  can_upload_shot: boolean;
}

export interface DribbbleSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addUser(user: SimulatedDribbbleUser): void;
}

const clientId = 'dribbble-client-id';
const clientSecret = 'dribbble-client-secret';

/** Dribbble tokens do not expire; the authority needs a lifetime, so a century stands for "never". */
const centurySeconds = 100 * 365 * 24 * 3600;

const descriptions: Readonly<Record<string, string>> = {
  invalid_client: 'Client authentication failed due to unknown client, no client authentication included, '
    + 'or unsupported authentication method.',
  invalid_grant: 'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI '
    + 'used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
};

function tokenError(error: string, description: string): SimulatedAnswer {
  const status = error === 'invalid_client' ? 401 : 400;
  return { status, body: { error, error_description: descriptions[error] ?? description } };
}

function tokenAnswer(tokens: IssuedTokens): unknown {
  const createdAt = Math.floor(Date.now() / 1000);
  return { access_token: tokens.accessToken, token_type: 'bearer', scope: tokens.scope, created_at: createdAt };
}

export async function startDribbbleSimulator(): Promise<DribbbleSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic-or-body',
    requirePkce: false,
    knownScopes: ['public', 'upload'],
    accessTokenSeconds: centurySeconds,
    refreshTokens: 'none',
    tokenError,
    tokenAnswer,
  });
  const users = new Map<string, SimulatedDribbbleUser>();

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return authority.authorize(request);
    if (request.path === '/oauth/token') return authority.token(request);
    if (request.method === 'GET' && request.path === '/v2/user') {
      const user = users.get(authority.userOf(bearerToken(request)) ?? '');
      if (user === undefined) return { status: 401, body: { message: 'Bad credentials.' } };
      const htmlUrl = `https://dribbble.com/${user.login}`;
      return { status: 200, body: { ...user, html_url: htmlUrl, bio: '', location: null, pro: false, teams: [] } };
    }
    return undefined;
  }, { status: 404, body: { message: 'Not found.' } });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(String(user.id), user); },
  };
}
