import type { PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import {
  graphError, graphPath, graphToken, longLivedLoginRoute, MetaTokenBook, pickFields, requestedFields, unknownPath,
  userBehind,
} from '../facebook/meta-graph-simulation.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { ThreadsPublishing, type TokenCheck } from './threads-publishing-simulation.ts';

/**
 * A local stand-in for the Threads API's connect steps, the consent host and graph.threads.net
 * on one server: `/oauth/authorize` (comma-separated `threads_*` scopes, no PKCE), `POST
 * /oauth/access_token` (Threads app secret in the form; a one-hour token with `user_id`),
 * `GET /access_token?grant_type=th_exchange_token` (60 days), `GET
 * /refresh_access_token?grant_type=th_refresh_token` (once a day old, before expiry) and `GET
 * /v1.0/me`. Refusals in Meta's Graph envelope `{error: {message, type, code, fbtrace_id}}`.
 * Every token keeps the scopes its user granted, so an endpoint refuses (code 10) a token
 * without its permission. Publishing, reading and insights: threads-publishing-simulation.ts.
 * Facts: ../shared/platforms/oauth-majors.md, sections 6.1-6.7.
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
  /** Containers, published threads, quotas, insights and injected failures. */
  publishing: ThreadsPublishing;
  /** A 60-day token for `user`, as connecting would give, with these scopes (all Threads scopes by default). */
  tokenFor(user: string, scopes?: readonly string[]): string;
  /** The user withdrew the app: every token of theirs is refused with code 190 from now on. */
  revokeUser(user: string): void;
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

/**
 * Graph refuses a parameter it cannot take with code 100 (oauth-majors.md 3.5), a text past its
 * length as "Param text must be at most 500 characters long" (6.5), anything else as an invalid
 * parameter.
 */
function refuseParameters(problems: string[]): SimulatedAnswer {
  for (const problem of problems) {
    const long = /^(?:body|query)\.(\w+) must NOT have more than (\d+) characters/.exec(problem);
    if (long !== null) {
      return graphError(`(#100) Param ${long[1] ?? ''} must be at most ${long[2] ?? ''} characters long`, 100);
    }
  }
  return graphError(`(#100) Invalid parameter: ${problems.join('; ')}`, 100);
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
  /** Scopes of the long-lived tokens, carried over from the short-lived token they were traded for. */
  const grants = new Map<string, readonly string[]>();
  const revoked = new Set<string>();

  function check(token: string | null): TokenCheck {
    const user = userBehind(token, rules);
    if (typeof user !== 'string') return user;
    if (revoked.has(user)) {
      return graphError('Error validating access token: The user has not authorized application.', 190, {
        subcode: 458,
      });
    }
    const scopes = authority.grantOf(token)?.scopes ?? grants.get(token ?? '') ?? [];
    return { user, username: users.get(user)?.username ?? user, scopes };
  }

  /** The long-lived token keeps the scopes of the one it was traded from or renews. */
  function tradeKeepingScopes(request: SimulatedRequest): SimulatedAnswer | undefined {
    const held = request.query.get('access_token');
    const scopes = authority.grantOf(held)?.scopes ?? grants.get(held ?? '') ?? [];
    const traded = longLivedLoginRoute(request, rules);
    const body = traded?.body;
    if (traded?.status === 200 && typeof body === 'object' && body !== null && 'access_token' in body) {
      grants.set(String(body.access_token), scopes);
    }
    return traded;
  }

  const publishing = new ThreadsPublishing({ now: () => authority.now(), check });

  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return authority.authorize(request);
    if (request.path === '/oauth/access_token') return authority.token(request);
    const traded = tradeKeepingScopes(request);
    if (traded !== undefined) return traded;
    if (request.method === 'GET' && request.path === '/v1.0/me') {
      const checked = check(graphToken(request));
      if (!('user' in checked)) return checked;
      const user = users.get(checked.user);
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
    const { version, rest } = graphPath(request.path);
    if (version !== null) return publishing.route(request, rest) ?? unknownPath(request);
    return unknownPath(request);
  }, graphError('Unknown path components', 2500), {
    operations: { check: OperationCheck.forPlatform('threads'), refuse: refuseParameters },
  });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    app: { clientId, clientSecret, apiUrl: server.url, authUrl: server.url, tokenUrl: server.url, botToken: null },
    addUser: (user) => { users.set(user.id, user); },
    publishing,
    tokenFor: (user, scopes = knownScopes) => {
      const token = rules.book.issue(user, 'long', rules.longLivedSeconds);
      grants.set(token, scopes);
      return token;
    },
    revokeUser: (user) => { revoked.add(user); },
  };
}
