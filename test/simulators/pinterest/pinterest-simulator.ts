import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Pinterest's OAuth 2.0 endpoints (www.pinterest.com/oauth/ and
 * api.pinterest.com/v5/oauth/token) and the v5 account and boards reads, refusing what
 * Pinterest refuses: HTTP Basic client authentication, comma-separated scopes, 30-day access
 * tokens, "continuous" refresh tokens that every refresh replaces, errors as `{code, message}`
 * (401 code 2 "Authentication failed."), boards paged by `bookmark` with `page_size` at most 250.
 * The spec documents the error shape, not the token endpoint's exact words for a bad grant:
 * `{code: 1, message: "Invalid parameters."}` stands for them.
 * Facts: ../shared/platforms/design-blogging-business.md, section 1 (Pinterest).
 */
export interface SimulatedPinterestUser {
  id: string;
  username: string;
  profile_image: string;
  account_type: 'PINNER' | 'BUSINESS';
  boards: { id: string; name: string; privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET' }[];
}

export interface PinterestSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addUser(user: SimulatedPinterestUser): void;
}

const clientId = '1484362';
const clientSecret = 'pinterest-client-secret';

const knownScopes = [
  'ads:read', 'ads:write', 'boards:read', 'boards:read_secret', 'boards:write', 'boards:write_secret', 'catalogs:read',
  'catalogs:write', 'pins:read', 'pins:read_secret', 'pins:write', 'pins:write_secret', 'user_accounts:read',
];

const accessSeconds = 30 * 24 * 3600;
const refreshSeconds = 60 * 24 * 3600;

function pinterestError(status: number, code: number, message: string): SimulatedAnswer {
  return { status, body: { code, message } };
}

const authenticationFailed = pinterestError(401, 2, 'Authentication failed.');
const invalidParameters = pinterestError(400, 1, 'Invalid parameters.');

function tokenError(error: string): SimulatedAnswer {
  return error === 'invalid_client' ? authenticationFailed : invalidParameters;
}

function tokenAnswer(tokens: IssuedTokens): unknown {
  const refresh = tokens.refreshToken === null ? {} : {
    refresh_token: tokens.refreshToken,
    refresh_token_expires_in: refreshSeconds,
    refresh_token_expires_at: Math.floor(Date.now() / 1000) + refreshSeconds,
  };
  const { accessToken, expiresIn, scope } = tokens;
  return { access_token: accessToken, token_type: 'bearer', expires_in: expiresIn, scope, ...refresh };
}

function boardsPage(request: SimulatedRequest, user: SimulatedPinterestUser): SimulatedAnswer {
  const size = Number(request.query.get('page_size') ?? '25');
  if (!Number.isInteger(size) || size < 1 || size > 250) return invalidParameters;
  const start = Number(request.query.get('bookmark') ?? '0');
  const items = user.boards.slice(start, start + size).map((board) => ({
    id: board.id, name: board.name, privacy: board.privacy, description: '', owner: { username: user.username },
  }));
  const next = start + size < user.boards.length ? String(start + size) : null;
  return { status: 200, body: { items, bookmark: next } };
}

export async function startPinterestSimulator(): Promise<PinterestSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic',
    requirePkce: false,
    knownScopes,
    scopeSeparator: ',',
    accessTokenSeconds: accessSeconds,
    refreshTokens: 'rotate',
    tokenError,
    tokenAnswer,
  });
  const users = new Map<string, SimulatedPinterestUser>();

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/') return authority.authorize(request);
    if (request.path === '/v5/oauth/token') return authority.token(request);
    if (request.method !== 'GET' || !request.path.startsWith('/v5/')) return undefined;
    const user = users.get(authority.userOf(bearerToken(request)) ?? '');
    if (user === undefined) return authenticationFailed;
    if (request.path === '/v5/user_account') {
      const { id, username, profile_image: profileImage, account_type: accountType } = user;
      const body = { id, username, profile_image: profileImage, account_type: accountType, website_url: '' };
      return { status: 200, body };
    }
    if (request.path === '/v5/boards') return boardsPage(request, user);
    return undefined;
  }, pinterestError(404, 404, 'Not found.'));

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(user.id, user); },
  };
}
