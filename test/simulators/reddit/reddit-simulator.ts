import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Reddit's OAuth 2.0 endpoints (www.reddit.com/api/v1) and its API host
 * (oauth.reddit.com), refusing what Reddit refuses: HTTP Basic client authentication only,
 * `duration=permanent` for a refresh token, space-separated scopes, one-hour bearer tokens,
 * refresh tokens that stay valid until revoked. Reddit answers a bad client with 401
 * `{"message": "Unauthorized", "error": 401}` but a bad grant with HTTP 200 and
 * `{"error": "invalid_grant"}`; the API refuses an unknown token with the same 401 body, and
 * throttles clients that do not name themselves in the User-Agent.
 * Facts: ../shared/platforms/open-and-community.md, section 6 (Reddit).
 */
export interface SimulatedRedditUser {
  id: string;
  name: string;
  /** As Reddit sends it: HTML-escaped, with a signed query. */
  icon_img: string;
}

export interface RedditSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addUser(user: SimulatedRedditUser): void;
}

const clientId = 'reddit-client-id';
const clientSecret = 'reddit-client-secret';

const knownScopes = [
  'identity', 'edit', 'flair', 'history', 'modconfig', 'modflair', 'modlog', 'modposts', 'modwiki', 'mysubreddits',
  'privatemessages', 'read', 'report', 'save', 'submit', 'subscribe', 'vote', 'wikiedit', 'wikiread',
];

const unauthorized: SimulatedAnswer = { status: 401, body: { message: 'Unauthorized', error: 401 } };

function tokenError(error: string): SimulatedAnswer {
  if (error === 'invalid_client') return unauthorized;
  return { status: 200, body: { error } };
}

/** Library defaults Reddit throttles hard; SPS must say who it is. */
function anonymousAgent(request: SimulatedRequest): boolean {
  const agent = request.headers['user-agent'] ?? '';
  return agent === '' || /^(node|undici|python-urllib|python-requests|curl)\b/i.test(agent);
}

export async function startRedditSimulator(): Promise<RedditSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic',
    requirePkce: false,
    knownScopes,
    requiredAuthorizeParameters: { duration: 'permanent' },
    accessTokenSeconds: 3600,
    refreshTokens: 'reuse',
    tokenError,
  });
  const users = new Map<string, SimulatedRedditUser>();

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/api/v1/authorize') return authority.authorize(request);
    if (anonymousAgent(request)) return { status: 429, body: { message: 'Too Many Requests', error: 429 } };
    if (request.path === '/api/v1/access_token') return authority.token(request);
    if (request.method === 'GET' && request.path === '/api/v1/me') {
      // Reddit writes the scheme in lower case ("bearer"); both cases are accepted.
      const user = users.get(authority.userOf(bearerToken(request)) ?? '');
      if (user === undefined) return unauthorized;
      return {
        status: 200,
        body: {
          id: user.id, name: user.name, icon_img: user.icon_img, total_karma: 1, is_suspended: false,
          subreddit: { display_name_prefixed: `u/${user.name}`, icon_img: user.icon_img },
        },
      };
    }
    return undefined;
  }, { status: 404, body: { message: 'Not Found', error: 404 } });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(user.id, user); },
  };
}
