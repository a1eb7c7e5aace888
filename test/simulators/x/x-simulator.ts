import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../kit/simulator-server.ts';
import { XMediaStore } from './x-media.ts';
import { XPostStore } from './x-posts.ts';
import { invalidRequest, problem, problemTypes } from './x-problems.ts';
import type { RawRequest, XAnswer } from './x-multipart.ts';

/**
 * A local stand-in for X's OAuth 2.0 endpoints and the API v2 endpoints SPS publishes with,
 * refusing what X refuses. OAuth: PKCE S256 on every authorization, HTTP Basic client
 * authentication (confidential clients), space-separated scopes, two-hour access tokens, refresh
 * tokens only with `offline.access`, rotated on every refresh; token refusals in X's words
 * (`invalid_request` "Value passed for ... was invalid.", 401 `unauthorized_client` "Missing valid
 * authorization header"). API: `GET /2/users/me`, `POST /2/tweets` (x-posts.ts), the media upload
 * (x-media.ts), `GET /2/users/:id/tweets`, `GET /2/tweets/:id`; refusals as problem details
 * `{title, detail, type, status}`; every answer carries `x-rate-limit-limit`, `-remaining` and
 * `-reset` (epoch seconds) for its route's 15-minute window, and a spent window answers 429.
 * Assumed where X's documentation is silent: a token without a needed scope gets 403
 * `not-authorized-for-resource`; a suspended account's writes get 403 "Your account is
 * suspended..."; STATUS of a media not finalized is a 400.
 * Facts: ../shared/platforms/oauth-majors.md, section 1 (X).
 */
export interface SimulatedXUser {
  id: string;
  name: string;
  username: string;
  profile_image_url: string;
  public_metrics?: { followers_count: number; following_count: number; tweet_count: number; listed_count: number };
  /** A suspended account can sign in and read, but X refuses its writes. */
  suspended?: boolean;
}

/**
 * What the next request to a route gets instead of its normal answer: an answer (the work is
 * not done), `loseResponse` (the work is done and the connection breaks before the answer), or
 * 'pass' to let one request through untouched.
 */
export type InjectedXStep = SimulatedAnswer | { loseResponse: true } | 'pass';

export interface XSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** Registers a user; `authority.consentingUser = user.id` makes them the next to consent. */
  addUser(user: SimulatedXUser): void;
  users: Map<string, SimulatedXUser>;
  posts: XPostStore;
  media: XMediaStore;
  /**
   * Steps for the next requests to `route`, in order. Routes are named like
   * `POST /2/tweets`, `POST /2/media/upload/:id/finalize`, `GET /2/users/:id/tweets`.
   */
  failNext(route: string, ...steps: InjectedXStep[]): void;
  /** X's 429 for a window that reopens in `seconds`. */
  rateLimited(seconds: number): SimulatedAnswer;
  /** Requests received for one route (see failNext), refused ones too. */
  requestsTo(route: string): RawRequest[];
  /** Answers cut off on purpose. */
  readonly lostResponses: number;
}

const clientId = 'x-client-id';
const clientSecret = 'x-client-secret';

/** Scopes X documents for OAuth 2.0 user context (a subset is enough to refuse typos). */
const knownScopes = [
  'tweet.read', 'tweet.write', 'tweet.moderate.write', 'users.read', 'users.email', 'follows.read', 'follows.write',
  'offline.access', 'space.read', 'mute.read', 'mute.write', 'like.read', 'like.write', 'list.read', 'list.write',
  'block.read', 'block.write', 'bookmark.read', 'bookmark.write', 'media.write', 'dm.read', 'dm.write',
];

const resourceNotFound = `${problemTypes}/resource-not-found`;
const notFound = problem(404, 'Not Found Error', 'Sorry, that page does not exist.', resourceNotFound);

/** Scopes each API route needs (X's API reference, "OAuth 2.0 scopes required by this endpoint"). */
const routeScopes: Record<string, readonly string[]> = {
  'GET /2/users/me': ['tweet.read', 'users.read'],
  'POST /2/tweets': ['tweet.read', 'tweet.write', 'users.read'],
  'POST /2/media/upload': ['media.write'],
  'POST /2/media/upload/initialize': ['media.write'],
  'POST /2/media/upload/:id/append': ['media.write'],
  'POST /2/media/upload/:id/finalize': ['media.write'],
  'GET /2/media/upload': ['media.write'],
  'GET /2/users/:id/tweets': ['tweet.read', 'users.read'],
  'GET /2/tweets/:id': ['tweet.read', 'users.read'],
  'DELETE /2/tweets/:id': ['tweet.read', 'tweet.write', 'users.read'],
};

/** Requests per user per 15 minutes (oauth-majors.md 1.7). */
const routeLimits: Record<string, number> = {
  'GET /2/users/me': 75,
  'POST /2/tweets': 100,
  'POST /2/media/upload': 500,
  'POST /2/media/upload/initialize': 1875,
  'POST /2/media/upload/:id/append': 1875,
  'POST /2/media/upload/:id/finalize': 1875,
  'GET /2/media/upload': 1000,
  'GET /2/users/:id/tweets': 900,
  'GET /2/tweets/:id': 900,
  'DELETE /2/tweets/:id': 50,
};

/** A request's route, ids replaced by `:id`. */
export function routeOf(method: string, path: string): string {
  const named = path.replace(/^\/2\/media\/upload\/\d+\//, '/2/media/upload/:id/')
    .replace(/^\/2\/users\/\d+\/tweets$/, '/2/users/:id/tweets')
    .replace(/^\/2\/tweets\/\d+$/, '/2/tweets/:id');
  return `${method} ${named}`;
}

/** Fields beyond id, name and username come only when user.fields asks for them. */
function profile(user: SimulatedXUser, userFields: string | null): Record<string, unknown> {
  const fields = (userFields ?? '').split(',');
  const data: Record<string, unknown> = { id: user.id, name: user.name, username: user.username };
  if (fields.includes('profile_image_url')) data.profile_image_url = user.profile_image_url;
  if (fields.includes('public_metrics')) {
    const none = { followers_count: 0, following_count: 0, tweet_count: 0, listed_count: 0 };
    data.public_metrics = user.public_metrics ?? none;
  }
  return data;
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
  const media = new XMediaStore();
  const posts = new XPostStore(media);
  const injected = new Map<string, InjectedXStep[]>();
  const windows = new Map<string, { used: number; resetAt: number }>();
  let lostResponses = 0;

  function answerRoute(request: RawRequest, route: string, user: SimulatedXUser, grant: string[]): XAnswer | undefined {
    const needed = routeScopes[route];
    if (needed === undefined) return undefined;
    const missing = needed.find((scope) => !grant.includes(scope));
    if (missing !== undefined) {
      const detail = `The token is missing the ${missing} scope this endpoint requires.`;
      const type = `${problemTypes}/not-authorized-for-resource`;
      return problem(403, 'Forbidden', detail, type, { resource_type: 'user' });
    }
    if (user.suspended === true && request.method === 'POST') {
      return problem(403, 'Forbidden', 'Your account is suspended and is not permitted to access this feature.');
    }
    const id = /^\/2\/media\/upload\/(\d+)\//.exec(request.path)?.[1] ?? '';
    switch (route) {
      case 'GET /2/users/me': return { status: 200, body: { data: profile(user, request.query.get('user.fields')) } };
      case 'POST /2/tweets': {
        const made = posts.create(request, user.id);
        if (!('post' in made)) return made;
        const { post } = made;
        return { status: 201, body: { data: { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] } } };
      }
      case 'POST /2/media/upload': return media.simpleUpload(request, user.id);
      case 'POST /2/media/upload/initialize': return media.initialize(request, user.id);
      case 'POST /2/media/upload/:id/append': return media.append(request, user.id, id);
      case 'POST /2/media/upload/:id/finalize': return media.finalize(user.id, id);
      case 'GET /2/media/upload': return media.status(request, user.id);
      case 'GET /2/users/:id/tweets': {
        const owner = users.get(request.path.split('/')[3] ?? '');
        if (owner === undefined) {
          const about = { resource_type: 'user', parameter: 'id', resource_id: request.path.split('/')[3] ?? '' };
          return problem(404, 'Not Found Error', 'Could not find user.', resourceNotFound, about);
        }
        return posts.timeline(request, owner.id, owner.username);
      }
      case 'GET /2/tweets/:id':
        return posts.lookup(request, request.path.split('/')[3] ?? '', (userId) => users.get(userId)?.username ?? 'i');
      case 'DELETE /2/tweets/:id': return posts.remove(request.path.split('/')[3] ?? '', user.id);
      default: return undefined;
    }
  }

  /** The route's 15-minute window for this user: headers for every answer, 429 once spent. */
  function rateWindow(route: string, userId: string): { headers: Record<string, string>; spent: boolean } {
    const limit = routeLimits[route] ?? 900;
    const key = `${userId} ${route}`;
    const now = Date.now();
    let window = windows.get(key);
    if (window === undefined || window.resetAt <= now) {
      window = { used: 0, resetAt: now + 15 * 60_000 };
      windows.set(key, window);
    }
    window.used += 1;
    const headers = {
      'x-rate-limit-limit': String(limit),
      'x-rate-limit-remaining': String(Math.max(0, limit - window.used)),
      'x-rate-limit-reset': String(Math.ceil(window.resetAt / 1000)),
    };
    return { headers, spent: window.used > limit };
  }

  function rateLimited(seconds: number): SimulatedAnswer {
    const reset = Math.ceil(Date.now() / 1000) + seconds;
    const answer = problem(429, 'Too Many Requests', 'Too Many Requests');
    const headers = { 'x-rate-limit-limit': '100', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) };
    return { ...answer, headers: { ...answer.headers, ...headers } };
  }

  function answerApi(request: RawRequest): XAnswer {
    const grant = authority.grantOf(bearerToken(request));
    const user = users.get(grant?.user ?? '');
    if (grant === null || user === undefined) return problem(401, 'Unauthorized', 'Unauthorized');
    const route = routeOf(request.method, request.path);
    const window = rateWindow(route, user.id);
    if (window.spent) {
      const reset = Number(window.headers['x-rate-limit-reset']);
      return rateLimited(Math.max(1, reset - Math.ceil(Date.now() / 1000)));
    }
    const step = injected.get(route)?.shift() ?? 'pass';
    if (step !== 'pass' && !('loseResponse' in step)) return step;
    const answer = answerRoute(request, route, user, grant.scopes);
    if (answer === undefined) return notFound;
    if (step !== 'pass') {
      lostResponses += 1;
      return { ...answer, lose: true };
    }
    return { ...answer, headers: { ...window.headers, ...answer.headers } };
  }

  // Bodies kept up to 8 MB: X takes media segments of at most 5 MB and images of 5 MB.
  const tooLarge = { status: 413, body: { title: 'Payload Too Large', status: 413 } };
  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/i/oauth2/authorize') return authority.authorize(request);
    if (request.path === '/2/oauth2/token') return authority.token(request);
    if (request.path.startsWith('/2/')) return answerApi(request);
    return notFound;
  }, notFound, {
    maxBodyBytes: 8 * 1024 * 1024,
    tooLarge,
    operations: { check: OperationCheck.forPlatform('x'), refuse: (problems) => invalidRequest(problems.join('; ')) },
  });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(user.id, user); },
    users,
    posts,
    media,
    failNext: (route, ...steps) => { injected.set(route, [...(injected.get(route) ?? []), ...steps]); },
    rateLimited,
    requestsTo: (route) => server.received.filter((request) => routeOf(request.method, request.path) === route),
    get lostResponses() { return lostResponses; },
  };
}
