import { OAuthAuthority } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { RedditReads } from './reddit-reads.ts';
import { RedditRecords, type SimulatedRedditUser, type SimulatedSubreddit } from './reddit-records.ts';
import { jsonErrors, RedditSubmissions } from './reddit-submissions.ts';
import { RedditUploads, s3Error, storagePath } from './reddit-uploads.ts';

export type { SimulatedRedditUser, SimulatedSubreddit } from './reddit-records.ts';

/**
 * A local stand-in for Reddit's OAuth 2.0 endpoints (www.reddit.com/api/v1), its API host
 * (oauth.reddit.com) and the storage its upload leases point at, refusing what Reddit refuses:
 * - OAuth: HTTP Basic client authentication only, `duration=permanent` for a refresh token,
 *   space-separated scopes, one-hour bearer tokens, refresh tokens valid until revoked; a bad
 *   client is 401 `{"message": "Unauthorized", "error": 401}`, a bad grant HTTP 200
 *   `{"error": "invalid_grant"}`;
 * - the API: a bearer token (401 otherwise) holding the scope each endpoint needs (403 with
 *   `WWW-Authenticate: ... error="insufficient_scope"` otherwise), a User-Agent naming the client
 *   (library defaults are throttled), and the client's quota: every answer carries
 *   `X-Ratelimit-Used`, `-Remaining` and `-Reset` (seconds left of the window), and a request
 *   over the quota is 429;
 * - publishing and deleting (reddit-submissions.ts), uploads (reddit-uploads.ts), reads (reddit-reads.ts).
 * Faults: `failNext(route, ...)` answers a route's next requests as given, or acts and then
 * breaks the connection (`'lose'`), as when Reddit made a post and its answer never arrived.
 * Facts: /work/shared/platforms/open-and-community.md, section 6 (Reddit).
 */
export type RedditFault = 'pass' | 'lose' | SimulatedAnswer;

export interface RedditSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  records: RedditRecords;
  uploads: RedditUploads;
  submissions: RedditSubmissions;
  /** The simulator's clock (ms): posts' `created_utc`, leases' expiry. */
  now: () => number;
  addUser(user: SimulatedRedditUser): void;
  addSubreddit(subreddit: SimulatedSubreddit): void;
  /** Route names are `METHOD /path` with `:name` for variable parts, such as `POST /api/submit`. */
  failNext(route: string, ...faults: RedditFault[]): void;
  /** The client's quota for one window from now: `limit` requests in `windowSeconds`; then Reddit's usual. */
  limitRequests(limit: number, windowSeconds: number): void;
  readonly lostResponses: number;
  requestsTo(route: string): SimulatedRequest[];
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

const badRequest: SimulatedAnswer = { status: 400, body: { message: 'Bad Request', error: 400 } };

/**
 * A request Reddit's API documentation does not allow, refused in the words of the host that got
 * it: S3's XML for the upload form, OAuth's `{error}` (HTTP 200, as Reddit answers a bad grant)
 * at the token endpoint, and on the API the `json.errors` a submission's field problems come as
 * (TOO_LONG, NO_TEXT with the field's name, open-and-community.md 6.5) or a plain 400.
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  if (request.path === storagePath) return s3Error(400, 'InvalidArgument', problems.join('; '));
  if (request.path === '/api/v1/access_token') {
    const grant = problems.some((problem) => problem.startsWith('body.grant_type '));
    return { status: 200, body: { error: grant ? 'unsupported_grant_type' : 'invalid_request' } };
  }
  if (request.method === 'GET') return badRequest;
  const entries = problems.map((problem): [string, string, string] | null => {
    const long = /^body\.(\w+) must NOT have more than (\d+) characters/.exec(problem);
    if (long !== null) return ['TOO_LONG', `this is too long (max: ${long[2] ?? ''})`, long[1] ?? ''];
    const missing = /^body must have required property '(\w+)'/.exec(problem);
    return missing === null ? null : ['NO_TEXT', 'we need something here', missing[1] ?? ''];
  });
  return entries.every((entry) => entry !== null) ? jsonErrors(entries) : badRequest;
}

type Handler = (user: SimulatedRedditUser, request: SimulatedRequest, match: string) => SimulatedAnswer
  | Promise<SimulatedAnswer>;

interface Route {
  name: string;
  method: string;
  path: RegExp;
  /** The OAuth scope Reddit's docs list for the endpoint. */
  scope: string;
  handle: Handler;
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
  const records = new RedditRecords();
  const clock = { now: Date.now };
  let origin = '';
  const uploads = new RedditUploads(records, () => origin, () => clock.now());
  const submissions = new RedditSubmissions(records, uploads, () => clock.now());
  const reads = new RedditReads(records);
  const faults = new Map<string, RedditFault[]>();
  const byRoute: { route: string; request: SimulatedRequest }[] = [];
  let lostResponses = 0;
  // Reddit's free tier: 100 requests a minute, counted over 10 minutes.
  const usual = { limit: 1000, windowMs: 600_000 };
  const quota = { ...usual, startedAt: 0, used: 0 };

  const routes: Route[] = [
    {
      name: 'GET /api/v1/me', method: 'GET', path: /^\/api\/v1\/me$/, scope: 'identity',
      handle: (user) => reads.me(user),
    },
    {
      name: 'POST /api/submit', method: 'POST', path: /^\/api\/submit$/, scope: 'submit',
      handle: (user, request) => submissions.submit(user, request),
    },
    {
      name: 'POST /api/submit_gallery_post.json', method: 'POST', path: /^\/api\/submit_gallery_post\.json$/,
      scope: 'submit', handle: (user, request) => submissions.gallery(user, request),
    },
    {
      name: 'POST /api/comment', method: 'POST', path: /^\/api\/comment$/, scope: 'submit',
      handle: (user, request) => submissions.comment(user, request),
    },
    {
      name: 'POST /api/del', method: 'POST', path: /^\/api\/del$/, scope: 'edit',
      handle: (user, request) => submissions.del(user, request),
    },
    {
      name: 'POST /api/media/asset.json', method: 'POST', path: /^\/api\/media\/asset\.json$/, scope: 'submit',
      handle: (_user, request) => uploads.lease(request),
    },
    {
      name: 'GET /user/:name/submitted', method: 'GET', path: /^\/user\/(\w+)\/submitted$/, scope: 'history',
      handle: (_user, request, name) => reads.submitted(request, name),
    },
    {
      name: 'GET /user/:name/comments', method: 'GET', path: /^\/user\/(\w+)\/comments$/, scope: 'history',
      handle: (_user, request, name) => reads.comments(request, name),
    },
    {
      name: 'GET /api/info', method: 'GET', path: /^\/api\/info$/, scope: 'read',
      handle: (_user, request) => reads.info(request),
    },
    {
      name: 'GET /subreddits/search', method: 'GET', path: /^\/subreddits\/search$/, scope: 'read',
      handle: (_user, request) => reads.search(request),
    },
    {
      name: 'GET /subreddits/mine/subscriber', method: 'GET', path: /^\/subreddits\/mine\/subscriber$/,
      scope: 'mysubreddits', handle: (user, request) => reads.mine(request, user),
    },
    {
      name: 'GET /r/:sr/about', method: 'GET', path: /^\/r\/(\w+)\/about$/, scope: 'read',
      handle: (user, _request, sr) => reads.subredditRead(user, sr, 'about'),
    },
    {
      name: 'GET /r/:sr/about/rules', method: 'GET', path: /^\/r\/(\w+)\/about\/rules$/, scope: 'read',
      handle: (user, _request, sr) => reads.subredditRead(user, sr, 'rules'),
    },
    {
      name: 'GET /r/:sr/api/link_flair_v2', method: 'GET', path: /^\/r\/(\w+)\/api\/link_flair_v2$/, scope: 'flair',
      handle: (user, _request, sr) => reads.subredditRead(user, sr, 'flairs'),
    },
    {
      name: 'GET /api/v1/:sr/post_requirements', method: 'GET', path: /^\/api\/v1\/(\w+)\/post_requirements$/,
      scope: 'submit', handle: (user, _request, sr) => reads.subredditRead(user, sr, 'requirements'),
    },
  ];

  /** Counts the request against the client's window; the headers every API answer carries. */
  function spend(): { over: boolean; headers: Record<string, string> } {
    const at = Date.now();
    if (at - quota.startedAt >= quota.windowMs) Object.assign(quota, usual, { startedAt: at, used: 0 });
    quota.used += 1;
    const reset = Math.max(1, Math.ceil((quota.startedAt + quota.windowMs - at) / 1000));
    return {
      over: quota.used > quota.limit,
      headers: {
        'x-ratelimit-used': String(Math.min(quota.used, quota.limit)),
        'x-ratelimit-remaining': String(Math.max(0, quota.limit - quota.used)),
        'x-ratelimit-reset': String(reset),
      },
    };
  }

  async function act(name: string, run: () => SimulatedAnswer | Promise<SimulatedAnswer>): Promise<SimulatedAnswer> {
    const fault = faults.get(name)?.shift() ?? 'pass';
    if (fault === 'pass') return run();
    if (fault === 'lose') {
      const answer = await run();
      lostResponses += 1;
      return { ...answer, lose: true };
    }
    return fault;
  }

  const notFound: SimulatedAnswer = { status: 404, body: { message: 'Not Found', error: 404 } };

  async function callApi(request: SimulatedRequest): Promise<SimulatedAnswer> {
    const route = routes.find((item) => item.method === request.method && item.path.test(request.path));
    if (route === undefined) return notFound;
    byRoute.push({ route: route.name, request });
    const grant = authority.grantOf(bearerToken(request));
    const user = records.users.get(grant?.user ?? '');
    if (grant === null || user === undefined) return unauthorized;
    const { over, headers } = spend();
    if (over) return { status: 429, body: { message: 'Too Many Requests', error: 429 }, headers };
    if (!grant.scopes.includes(route.scope)) {
      const challenge = `Bearer realm="reddit", error="insufficient_scope", scope="${route.scope}"`;
      const refused = { ...headers, 'www-authenticate': challenge };
      return { status: 403, body: { message: 'Forbidden', error: 403 }, headers: refused };
    }
    const match = route.path.exec(request.path)?.[1] ?? '';
    const answer = await act(route.name, () => route.handle(user, request, match));
    return { ...answer, headers: { ...headers, ...answer.headers } };
  }

  const server = await startSimulatorServer(async (request) => {
    if (request.method === 'GET' && request.path === '/api/v1/authorize') return authority.authorize(request);
    if (request.path === storagePath) {
      byRoute.push({ route: 'POST storage', request });
      return act('POST storage', () => uploads.store(request));
    }
    if (anonymousAgent(request)) return { status: 429, body: { message: 'Too Many Requests', error: 429 } };
    if (request.path === '/api/v1/access_token') return authority.token(request);
    return callApi(request);
  }, notFound, {
    operations: { check: OperationCheck.forPlatform('reddit'), refuse },
    // Videos come through the storage form; anything larger gets S3's refusal before the handler.
    maxBodyBytes: 40 * 1024 * 1024,
    tooLarge: {
      status: 400,
      headers: { 'content-type': 'application/xml' },
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>EntityTooLarge</Code>'
        + '<Message>Your proposed upload exceeds the maximum allowed size</Message></Error>',
    },
  });
  origin = server.url;

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    records,
    uploads,
    submissions,
    get now() { return clock.now; },
    set now(next: () => number) { clock.now = next; },
    addUser: (user) => { records.users.set(user.id, user); },
    addSubreddit: (subreddit) => { records.subreddits.push(subreddit); },
    failNext: (route, ...steps) => { faults.set(route, [...(faults.get(route) ?? []), ...steps]); },
    limitRequests: (limit, windowSeconds) => {
      Object.assign(quota, { limit, windowMs: windowSeconds * 1000, startedAt: Date.now(), used: 0 });
    },
    get lostResponses() { return lostResponses; },
    requestsTo: (route) => byRoute.filter((item) => item.route === route).map((item) => item.request),
  };
}
