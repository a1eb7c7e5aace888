import type { PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import {
  graphError, graphToken, longLivedLoginRoute, MetaTokenBook, pickFields, requestedFields, unknownPath, userBehind,
} from '../facebook/meta-graph-simulation.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { startSimulatorServer, type RunningSimulator, type SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * A local stand-in for the Threads API's connect steps, the consent host and graph.threads.net
 * on one server: `/oauth/authorize` (comma-separated `threads_*` scopes, no PKCE), `POST
 * /oauth/access_token` (Threads app secret in the form; a one-hour token with `user_id`),
 * `GET /access_token?grant_type=th_exchange_token` (60 days), `GET
 * /refresh_access_token?grant_type=th_refresh_token` (once a day old, before expiry) and `GET
 * /v1.0/me`. Refusals in Meta's Graph envelope `{error: {message, type, code, fbtrace_id}}`.
 * Facts: ../shared/platforms/oauth-majors.md, section 6.1.
 */
export interface SimulatedThreadsUser {
  id: string;
  username: string;
  name: string;
  profilePictureUrl: string;
  biography: string;
}

export interface ThreadsSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** The simulator's origin as every URL of the app. */
  app: PlatformApp;
  /** Registers a user; `authority.consentingUser = user.id` makes them consent next. */
  addUser(user: SimulatedThreadsUser): void;
}

const clientId = 'threads-app-id';
const clientSecret = 'threads-app-secret';

const knownScopes = [
  'threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies',
  'threads_manage_insights', 'threads_keyword_search', 'threads_manage_mentions', 'threads_delete',
];

/** graph.threads.net answers the code exchange's refusals in the Graph envelope. */
function tokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return graphError('Error validating client secret.', 1);
  if (error === 'invalid_grant' && /redirect_uri/.test(description)) {
    return graphError('Error validating verification code. Please make sure your redirect_uri is identical to the one '
      + 'you used in the OAuth dialog request', 100);
  }
  if (error === 'invalid_grant') return graphError('This authorization code has been used.', 100, { subcode: 36009 });
  return graphError(description, 100);
}

export async function startThreadsSimulator(): Promise<ThreadsSimulator> {
  const users = new Map<string, SimulatedThreadsUser>();
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes,
    scopeSeparator: ',',
    accessTokenSeconds: 3600,
    refreshTokens: 'none',
    tokenError,
    tokenAnswer: (tokens: IssuedTokens) => ({
      access_token: tokens.accessToken,
      user_id: authority.userOf(tokens.accessToken),
    }),
  });
  const rules = {
    exchangeGrant: 'th_exchange_token',
    refreshGrant: 'th_refresh_token',
    clientSecret,
    longLivedSeconds: 5183944,
    refreshAfterSeconds: 24 * 3600,
    shortLivedUser: (token: string | null) => authority.userOf(token),
    book: new MetaTokenBook(() => authority.now()),
  };

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return authority.authorize(request);
    if (request.path === '/oauth/access_token') return authority.token(request);
    const traded = longLivedLoginRoute(request, rules);
    if (traded !== undefined) return traded;
    if (request.method === 'GET' && request.path === '/v1.0/me') {
      const key = userBehind(graphToken(request), rules);
      if (typeof key !== 'string') return key;
      const user = users.get(key);
      if (user === undefined) return unknownPath(request);
      const node = {
        id: user.id,
        username: user.username,
        name: user.name,
        threads_profile_picture_url: user.profilePictureUrl,
        threads_biography: user.biography,
      };
      return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
    }
    return unknownPath(request);
  }, graphError('Unknown path components', 2500));

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    app: { clientId, clientSecret, apiUrl: server.url, authUrl: server.url, tokenUrl: server.url, botToken: null },
    addUser: (user) => { users.set(user.id, user); },
  };
}
