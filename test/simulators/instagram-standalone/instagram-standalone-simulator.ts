import type { PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import { graphOperations } from '../facebook/graph-operations.ts';
import {
  graphPath, graphToken, longLivedLoginRoute, MetaTokenBook, pickFields, requestedFields, unknownPath, userBehind,
} from '../facebook/meta-graph-simulation.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { startSimulatorServer, type RunningSimulator, type SimulatedAnswer } from '../kit/simulator-server.ts';
import { InstagramContentSimulation } from '../instagram/instagram-content-simulation.ts';

/**
 * A local stand-in for the Instagram API with Instagram Login, all three hosts on one server:
 * the consent page (`/oauth/authorize`, comma-separated `instagram_business_*` scopes, no PKCE),
 * the code exchange (`POST /oauth/access_token`, app secret in the form, a one-hour token with
 * `user_id` and `permissions`, flat or wrapped in `data`), the trades on graph.instagram.com
 * (`GET /access_token?grant_type=ig_exchange_token` for a 60-day token, `GET
 * /refresh_access_token?grant_type=ig_refresh_token` once it is a day old) and `GET /me`.
 * The code exchange refuses in api.instagram.com's own shape `{error_type, code, error_message}`;
 * the Graph host in the Graph envelope `{error: {message, type, code, fbtrace_id}}`. Publishing
 * (containers, media, comments, insights) is the content simulation both Instagram simulators
 * share (../instagram/instagram-content-simulation.ts), acting for the token's user.
 * Requests and answers are held to Instagram Login's operations (operations.json beside this file).
 * Facts: ../shared/platforms/oauth-majors.md, section 5.1.
 */
export interface SimulatedInstagramUser {
  /** The Instagram professional account id publishing uses (`user_id` on /me). */
  userId: string;
  /** The app-scoped id (`id` on /me, `user_id` in the code exchange answer). */
  appScopedId: string;
  username: string;
  name: string;
  profilePictureUrl: string;
  followersCount?: number;
  followsCount?: number;
}

export interface InstagramStandaloneSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** The simulator's origin as every URL of the app (www, api and graph hosts alike). */
  app: PlatformApp;
  /** Registers a user under `key`; `authority.consentingUser = key` makes them consent next. */
  addUser(key: string, user: SimulatedInstagramUser): void;
  /** Containers, media, comments, injected failures. */
  content: InstagramContentSimulation;
}

export interface InstagramStandaloneOptions {
  /** Meta's newer pages show the code exchange's answer wrapped in `data: [...]`, older ones flat. */
  tokenAnswer?: 'wrapped' | 'flat';
}

const clientId = 'instagram-app-id';
const clientSecret = 'instagram-app-secret';

/** Scopes of Business Login for Instagram since January 2025 (the `business_*` names are gone). */
const knownScopes = [
  'instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_comments',
  'instagram_business_manage_messages', 'instagram_business_manage_insights',
];

/** api.instagram.com's shape of a refusal: `{error_type, code, error_message}`. */
const apiRefusal = (message: string): SimulatedAnswer =>
  ({ status: 400, body: { error_type: 'OAuthException', code: 400, error_message: message } });

/** api.instagram.com's words for the code exchange's refusals. */
function tokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return apiRefusal('Error validating client secret.');
  if (error === 'invalid_grant' && /redirect_uri/.test(description)) {
    return apiRefusal('Error validating verification code. Please make sure your redirect_uri is identical to the '
      + 'one you used in the OAuth dialog request');
  }
  if (error === 'invalid_grant') return apiRefusal('This authorization code has been used');
  return apiRefusal(description);
}

export async function startInstagramStandaloneSimulator(
  options: InstagramStandaloneOptions = {},
): Promise<InstagramStandaloneSimulator> {
  const users = new Map<string, SimulatedInstagramUser>();
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
    tokenAnswer: (tokens: IssuedTokens) => {
      const user = users.get(authority.userOf(tokens.accessToken) ?? '');
      const answer = {
        access_token: tokens.accessToken,
        user_id: user?.appScopedId ?? '',
        permissions: tokens.scope.split(' ').join(','),
      };
      return options.tokenAnswer === 'flat' ? answer : { data: [answer] };
    },
  });
  const book = new MetaTokenBook(() => authority.now());
  const rules = {
    exchangeGrant: 'ig_exchange_token',
    refreshGrant: 'ig_refresh_token',
    clientSecret,
    longLivedSeconds: 60 * 24 * 3600,
    refreshAfterSeconds: 24 * 3600,
    shortLivedUser: (token: string | null) => authority.userOf(token),
    book,
  };

  const content = new InstagramContentSimulation({
    now: () => authority.now(),
    actingAccount: (request) => {
      const key = userBehind(graphToken(request), rules);
      if (typeof key !== 'string') return Promise.resolve(key);
      return Promise.resolve(users.get(key)?.userId ?? unknownPath(request));
    },
  });

  const server = await startSimulatorServer(async (request) => {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return authority.authorize(request);
    if (request.path === '/oauth/access_token') return authority.token(request);
    const traded = longLivedLoginRoute(request, rules);
    if (traded !== undefined) return traded;
    if (request.method === 'GET' && graphPath(request.path).rest === '/me') {
      const key = userBehind(graphToken(request), rules);
      if (typeof key !== 'string') return key;
      const user = users.get(key);
      if (user === undefined) return unknownPath(request);
      const node = {
        id: user.appScopedId,
        user_id: user.userId,
        username: user.username,
        name: user.name,
        profile_picture_url: user.profilePictureUrl,
        account_type: 'BUSINESS',
      };
      return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
    }
    return await content.route(request) ?? unknownPath(request);
  }, { status: 404, body: { error: { message: 'Unknown path', type: 'OAuthException', code: 2500 } } }, {
    // api.instagram.com refuses the code exchange in its own shape; the Graph host in Graph's.
    operations: graphOperations('instagram-standalone', (reasons, request) =>
      (request.path === '/oauth/access_token' ? apiRefusal(reasons) : undefined)),
  });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    app: { clientId, clientSecret, apiUrl: server.url, authUrl: server.url, tokenUrl: server.url, botToken: null },
    content,
    addUser: (key, user) => {
      users.set(key, user);
      content.addProfile({ ...user, id: user.userId });
    },
  };
}
