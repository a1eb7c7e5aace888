import { FaultPlan, type FaultStep } from '../kit/fault-plan.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import {
  authenticationFailed, insufficientScope, invalidParameters, invalidRequest, notFound, pinterestError, rateLimited,
  routeOf, routeScopes,
} from './pinterest-answers.ts';
import { accountAnalytics, pinAnalytics } from './pinterest-insights.ts';
import { PinterestMediaStore, uploadPath } from './pinterest-media.ts';
import { pinterestOperations } from './pinterest-operations.ts';
import { PinterestPins, type SimulatedBoard } from './pinterest-pins.ts';

/**
 * A local stand-in for Pinterest's OAuth 2.0 endpoints (www.pinterest.com/oauth/ and
 * api.pinterest.com/v5/oauth/token) and the v5 account and boards reads, refusing what
 * Pinterest refuses: HTTP Basic client authentication, comma-separated scopes, 30-day access
 * tokens, "continuous" refresh tokens that every refresh replaces, errors as `{code, message}`
 * (401 code 2 "Authentication failed."), boards paged by `bookmark` with `page_size` at most 250.
 * The spec documents the error shape, not the token endpoint's exact words for a bad grant:
 * `{code: 1, message: "Invalid parameters."}` stands for them.
 * Publishing: pins (pinterest-pins.ts), video registration and its S3-style upload host
 * (pinterest-media.ts), analytics (pinterest-insights.ts), boards and sections; every API route
 * checks the token's scopes, counts requests per user in a window (429 with X-RateLimit-*), and
 * can be made to lose its answer after acting or to refuse (failNext).
 * Requests and answers are held to Pinterest's description (operations.json, pinterest-operations.ts).
 * Facts: ../shared/platforms/design-blogging-business.md, section 1 (Pinterest).
 */
export interface SimulatedPinterestUser {
  id: string;
  username: string;
  profile_image: string;
  account_type: 'PINNER' | 'BUSINESS';
  boards: SimulatedBoard[];
  follower_count?: number;
  /** What `GET /v5/user_account/analytics` sums up; tests set it. */
  metrics?: Record<string, number>;
}

export interface PinterestSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addUser(user: SimulatedPinterestUser): void;
  pins: PinterestPins;
  media: PinterestMediaStore;
  /** Requests a user may make per window before a 429; tests lower it. */
  rateLimit: { limit: number; windowMs: number };
  /** Queues what the next calls of a route do (`POST /v5/pins`, `POST upload`...), in order. */
  failNext(route: string, ...steps: FaultStep[]): void;
  /** Pinterest's 429 for a window that reopens in `seconds`, for failNext. */
  rateLimited(seconds: number): SimulatedAnswer;
  /** Requests received for one route, refused ones too. */
  requestsTo(route: string): SimulatedRequest[];
  readonly lostResponses: number;
}

const clientId = '1484362';
const clientSecret = 'pinterest-client-secret';

const knownScopes = [
  'ads:read', 'ads:write', 'boards:read', 'boards:read_secret', 'boards:write', 'boards:write_secret', 'catalogs:read',
  'catalogs:write', 'pins:read', 'pins:read_secret', 'pins:write', 'pins:write_secret', 'user_accounts:read',
];

const accessSeconds = 30 * 24 * 3600;
const refreshSeconds = 60 * 24 * 3600;

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

function page(request: SimulatedRequest, all: readonly unknown[]): SimulatedAnswer {
  const size = Number(request.query.get('page_size') ?? '25');
  if (!Number.isInteger(size) || size < 1 || size > 250) return invalidParameters;
  const start = Number(request.query.get('bookmark') ?? '0');
  const next = start + size < all.length ? String(start + size) : null;
  return { status: 200, body: { items: all.slice(start, start + size), bookmark: next } };
}

const shownBoard = (board: SimulatedBoard, user: SimulatedPinterestUser) => ({
  id: board.id, name: board.name, privacy: board.privacy, description: board.description ?? '',
  owner: { username: user.username },
});

function createBoard(request: SimulatedRequest, user: SimulatedPinterestUser): SimulatedAnswer {
  const body = jsonBody(request);
  const fields = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {};
  const { name, description, privacy } = fields;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 180) return invalidParameters;
  if (privacy !== undefined && privacy !== 'PUBLIC' && privacy !== 'PROTECTED' && privacy !== 'SECRET') {
    return invalidParameters;
  }
  if (user.boards.some((board) => board.name === name)) {
    return pinterestError(409, 58, 'You already have a board with this name.');
  }
  const board: SimulatedBoard = {
    id: String(Number(user.id) * 1000 + user.boards.length + 1),
    name,
    privacy: privacy ?? 'PUBLIC',
    ...(typeof description === 'string' ? { description } : {}),
  };
  user.boards.push(board);
  return { status: 201, body: shownBoard(board, user) };
}

/** Requests of one user within the current window. */
interface Window {
  startedAt: number;
  count: number;
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
  const faults = new FaultPlan();
  const windows = new Map<string, Window>();
  const rateLimit = { limit: 1_000, windowMs: 60_000 };
  let origin = '';
  const media = new PinterestMediaStore(() => origin);
  const pins = new PinterestPins(media);

  /** Counts the call; a 429 once the user's window is spent, until it turns over. */
  function throttled(userId: string): SimulatedAnswer | null {
    const now = Date.now();
    let window = windows.get(userId);
    if (window === undefined || now - window.startedAt >= rateLimit.windowMs) {
      window = { startedAt: now, count: 0 };
      windows.set(userId, window);
    }
    window.count += 1;
    if (window.count <= rateLimit.limit) return null;
    return rateLimited(Math.max(1, Math.ceil((window.startedAt + rateLimit.windowMs - now) / 1000)), rateLimit.limit);
  }

  function boardOf(user: SimulatedPinterestUser, path: string): SimulatedBoard | undefined {
    const id = /^\/v5\/boards\/([^/]+)\//.exec(path)?.[1];
    return user.boards.find((board) => board.id === id);
  }

  function answer(request: SimulatedRequest, route: string, user: SimulatedPinterestUser): SimulatedAnswer {
    const pinId = /^\/v5\/pins\/([^/]+)/.exec(request.path)?.[1];
    const ownPin = pins.items.find((pin) => pin.id === pinId && pin.owner === user.id);
    switch (route) {
      case 'GET /v5/user_account': {
        const { id, username, profile_image: profileImage, account_type: accountType } = user;
        const body = {
          id, username, profile_image: profileImage, account_type: accountType, website_url: '',
          follower_count: user.follower_count ?? 0,
          pin_count: pins.items.filter((pin) => pin.owner === user.id).length,
        };
        return { status: 200, body };
      }
      case 'GET /v5/user_account/analytics': return accountAnalytics(request, user.metrics ?? {});
      case 'GET /v5/boards': return page(request, user.boards.map((board) => shownBoard(board, user)));
      case 'POST /v5/boards': return createBoard(request, user);
      case 'GET /v5/boards/:id/sections': {
        const board = boardOf(user, request.path);
        return board === undefined ? pinterestError(404, 40, 'Board not found.') : page(request, board.sections ?? []);
      }
      case 'GET /v5/boards/:id/pins': {
        const board = boardOf(user, request.path);
        return board === undefined ? pinterestError(404, 40, 'Board not found.') : pins.boardPins(request, board);
      }
      case 'POST /v5/pins': return pins.create(request, user.id, user.boards);
      case 'GET /v5/pins/:id':
        if (ownPin === undefined) return pinterestError(404, 50, 'Pin not found.');
        return { status: 200, body: pins.shown(ownPin) };
      case 'DELETE /v5/pins/:id':
        // The user's own pin goes (204); another's or an unknown one is "Pin not found." as reads answer it.
        if (ownPin === undefined) return pinterestError(404, 50, 'Pin not found.');
        pins.items.splice(pins.items.indexOf(ownPin), 1);
        return { status: 204 };
      case 'GET /v5/pins/:id/analytics': return pinAnalytics(request, ownPin);
      case 'POST /v5/media': return media.register(request, user.id);
      case 'GET /v5/media/:id': return media.status(request.path.slice('/v5/media/'.length), user.id);
      default: return notFound;
    }
  }

  async function api(request: SimulatedRequest): Promise<SimulatedAnswer> {
    const route = routeOf(request.method, request.path);
    const needed = routeScopes[route];
    if (needed === undefined) return notFound;
    const grant = authority.grantOf(bearerToken(request));
    const user = users.get(grant?.user ?? '');
    if (grant === null || user === undefined) return authenticationFailed;
    const missing = needed.find((scope) => !grant.scopes.includes(scope));
    if (missing !== undefined) return insufficientScope(missing);
    const limited = throttled(user.id);
    if (limited !== null) return limited;
    return faults.run(route, () => answer(request, route, user));
  }

  // Bodies up to 40 MB: an image pin carries its image as base64 (a 20 MB image makes 27 MB).
  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/') return authority.authorize(request);
    if (request.path === '/v5/oauth/token') return authority.token(request);
    if (request.method === 'POST' && request.path === uploadPath) {
      return faults.run('POST upload', () => media.upload(request));
    }
    if (!request.path.startsWith('/v5/')) return undefined;
    return api(request);
  }, notFound, {
    maxBodyBytes: 40 * 1024 * 1024,
    tooLarge: invalidRequest('Request entity too large.'),
    operations: pinterestOperations(),
  });
  origin = server.url;

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(user.id, user); },
    pins,
    media,
    rateLimit,
    failNext: (route, ...steps) => { faults.failNext(route, ...steps); },
    rateLimited: (seconds) => rateLimited(seconds, rateLimit.limit),
    requestsTo: (route) => server.received.filter((request) => routeOf(request.method, request.path) === route
      || (route === 'POST upload' && request.path === uploadPath)),
    get lostResponses() { return faults.lostResponses; },
  };
}
