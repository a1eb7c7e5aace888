import { randomBytes } from 'node:crypto';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { listCommunities, resolveObject, searchCommunities } from './lemmy-communities.ts';
import {
  createComment, createPost, deleteContent, getComment, getPost, personDetails,
} from './lemmy-content.ts';
import { uploadImages } from './lemmy-pictrs.ts';
import { LemmyRateLimiter, type LemmyBucket } from './lemmy-rate-limit.ts';
import { siteAnswer } from './lemmy-site.ts';
import { lemmyError, readJson, viewer } from './lemmy-requests.ts';
import { LemmyState, type SimulatedCommunity, type SimulatedLemmyUser } from './lemmy-state.ts';

export type { SimulatedCommunity, SimulatedLemmyUser } from './lemmy-state.ts';

/**
 * A local stand-in for one Lemmy 0.19 instance's API v3 and its pict-rs: signing in
 * (POST /api/v3/user/login, GET /api/v3/site), posts and comments (lemmy-content.ts), communities
 * (lemmy-communities.ts), uploads (lemmy-pictrs.ts) and the rate limiter (lemmy-rate-limit.ts).
 * Bodies are read the way Lemmy's JSON extractor reads them; refusals are `{"error": "<snake_case>"}`
 * with Lemmy's statuses (401 for incorrect_login, 404 for missing rows, 400 for the rest).
 * Facts: ../shared/platforms/open-and-community.md, section 7.
 */

/** An injected answer, or `lose`: the instance acts, then the connection breaks before its answer. */
export type LemmyFault = SimulatedAnswer | 'lose';

export interface LemmySimulatorOptions {
  /** Whether the instance's pict-rs takes video (pict-rs `media.video` settings); true unless said. */
  allowVideo?: boolean;
  /** Largest request body, as the instance's proxy and pict-rs cap it. */
  maxBodyBytes?: number;
}

export interface LemmySimulator extends RunningSimulator {
  addUser(user: SimulatedLemmyUser): void;
  addCommunity(community: SimulatedCommunity): SimulatedCommunity;
  /** The session tokens the instance handed out and still honours. */
  sessions: Map<string, SimulatedLemmyUser>;
  state: LemmyState;
  rateLimits: LemmyRateLimiter;
  /** The next requests to `METHOD /path` meet these faults, in order. */
  failNext(route: string, ...faults: LemmyFault[]): void;
  /** The user logged out everywhere (or changed the password): every session of theirs ends. */
  logOut(userName: string): void;
  requestsTo(route: string): SimulatedRequest[];
  stats: { lostAnswers: number };
}

/** Which rate limit each endpoint counts against; everything else is a "message". */
const buckets: Record<string, LemmyBucket> = {
  'POST /api/v3/post': 'post',
  'POST /api/v3/comment': 'comment',
  'POST /pictrs/image': 'image',
  'GET /api/v3/search': 'search',
  'POST /api/v3/user/register': 'register',
};

/** The error Lemmy's validation answers for a field past its limit (open-and-community.md 7.5, 7.7). */
const limitErrors: Record<string, string> = {
  name: 'invalid_post_title',
  body: 'invalid_body_field',
  content: 'invalid_body_field',
  url: 'url_length_overflow',
  custom_thumbnail: 'url_length_overflow',
  alt_text: 'alt_text_length_overflow',
};

/**
 * A request lemmy-js-client's types do not allow, refused as Lemmy would: a field over its limit
 * with that check's error, pict-rs in its `{msg}`, and anything else as actix's extractor does,
 * in plain text.
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  if (request.path === '/pictrs/image') return { status: 400, body: { msg: `Error in upload: ${reasons}` } };
  const limited = problems.map((problem) => /^body\.(\w+) must (?:NOT have more|match pattern)/.exec(problem)?.[1])
    .find((field) => field !== undefined && limitErrors[field] !== undefined);
  if (limited !== undefined) return lemmyError(400, limitErrors[limited] ?? 'invalid_body_field');
  // A page size past FETCH_LIMIT_MAX passes the query extractor and fails in the database layer.
  if (problems.some((problem) => problem.startsWith('query.limit must be'))) {
    return { status: 400, body: { error: 'unknown', message: 'Fetch limit is > 50' } };
  }
  const extractor = request.method === 'GET' ? 'Query' : 'Json';
  return { status: 400, body: `${extractor} deserialize error: ${reasons}` };
}

export async function startLemmySimulator(options: LemmySimulatorOptions = {}): Promise<LemmySimulator> {
  const state = new LemmyState();
  const rateLimits = new LemmyRateLimiter();
  const faults = new Map<string, LemmyFault[]>();
  const stats = { lostAnswers: 0 };
  const allowVideo = options.allowVideo ?? true;

  function login(request: SimulatedRequest): SimulatedAnswer {
    const read = readJson(request, { username_or_email: 'string', password: 'string', totp_2fa_token: 'string' },
      ['username_or_email', 'password']);
    if ('refusal' in read) return read.refusal;
    const fields = read.fields;
    const given = String(fields.username_or_email).toLowerCase();
    const matches = (candidate: SimulatedLemmyUser) => [candidate.name, candidate.email]
      .some((name) => name.toLowerCase() === given);
    const user = state.users.find(matches);
    if (user === undefined || user.password !== fields.password) return lemmyError(401, 'incorrect_login');
    if (user.totp !== undefined) {
      const code = fields.totp_2fa_token;
      if (code === undefined || code === null) return lemmyError(400, 'missing_totp_token');
      if (code !== user.totp) return lemmyError(400, 'incorrect_totp_token');
    }
    // No session yet: Lemmy leaves `jwt` out (LoginResponse.jwt is optional), it never sends null.
    if (user.pending === true) {
      return { status: 200, body: { registration_created: true, verify_email_sent: false } };
    }
    const claims = Buffer.from(JSON.stringify({ sub: user.id, iss: 'lemmy' })).toString('base64url');
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${claims}.${randomBytes(16).toString('base64url')}`;
    state.sessions.set(jwt, user);
    return { status: 200, body: { jwt, registration_created: false, verify_email_sent: false } };
  }

  function site(request: SimulatedRequest): SimulatedAnswer {
    const seen = viewer(state, request);
    if ('refusal' in seen) return seen.refusal;
    return { status: 200, body: siteAnswer(state, rateLimits, seen.user) };
  }

  const routes: Record<string, (request: SimulatedRequest) => SimulatedAnswer> = {
    'POST /api/v3/user/login': login,
    'GET /api/v3/site': site,
    'POST /api/v3/post': (request) => createPost(state, request),
    'GET /api/v3/post': (request) => getPost(state, request),
    'POST /api/v3/comment': (request) => createComment(state, request),
    'POST /api/v3/post/delete': (request) => deleteContent(state, request, 'post'),
    'POST /api/v3/comment/delete': (request) => deleteContent(state, request, 'comment'),
    'GET /api/v3/comment': (request) => getComment(state, request),
    'GET /api/v3/user': (request) => personDetails(state, request),
    'GET /api/v3/search': (request) => searchCommunities(state, request),
    'GET /api/v3/community/list': (request) => listCommunities(state, request),
    'GET /api/v3/resolve_object': (request) => resolveObject(state, request),
    'POST /pictrs/image': (request) => uploadImages(state, request, allowVideo),
  };
  const paths = new Set(Object.keys(routes).map((route) => route.slice(route.indexOf(' ') + 1)));

  function answer(request: SimulatedRequest): SimulatedAnswer | undefined {
    const route = `${request.method} ${request.path}`;
    const handle = routes[route];
    if (handle === undefined) return paths.has(request.path) ? { status: 405, body: '' } : undefined;
    const fault = faults.get(route)?.shift();
    if (fault !== undefined && fault !== 'lose') return fault;
    // The limiter runs before the handler, so a throttled request changes nothing.
    if (!rateLimits.take(buckets[route] ?? 'message')) return lemmyError(400, 'rate_limit_error');
    const answered = handle(request);
    if (fault !== 'lose') return answered;
    stats.lostAnswers += 1;
    return { ...answered, lose: true };
  }

  const server = await startSimulatorServer(answer, lemmyError(404, 'not_found'), {
    maxBodyBytes: options.maxBodyBytes ?? 8 * 1024 * 1024,
    tooLarge: { status: 413, body: { msg: 'Payload too large' } },
    operations: { check: OperationCheck.forPlatform('lemmy'), refuse },
  });
  state.origin = server.url;
  return {
    ...server,
    state,
    rateLimits,
    stats,
    sessions: state.sessions,
    addUser: (user) => { state.users.push(user); },
    addCommunity: (community) => {
      state.communities.push(community);
      return community;
    },
    failNext: (route, ...added) => { faults.set(route, [...(faults.get(route) ?? []), ...added]); },
    logOut: (userName) => {
      for (const [token, user] of state.sessions) if (user.name === userName) state.sessions.delete(token);
    },
    requestsTo: (route) => server.received.filter((request) => `${request.method} ${request.path}` === route),
  };
}
