import { FaultPlan, type FaultStep } from '../kit/fault-plan.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { DribbbleShots } from './dribbble-shots.ts';

/**
 * A local stand-in for Dribbble's OAuth endpoints (dribbble.com/oauth) and `GET /v2/user` on
 * api.dribbble.com: client id and secret in the token form, space-separated scopes (`public`,
 * `upload`), access tokens that never expire and no refresh token. Token refusals follow RFC
 * 6749 in Doorkeeper's words; the API answers an unknown token 401 `{"message": ...}` (the status
 * is documented, the exact words are not).
 * Publishing (dribbble-shots.ts): `POST /v2/shots`, `GET /v2/user/shots`, `GET` and `DELETE /v2/shots/{id}`;
 * `upload` is needed to post. Every API answer carries X-RateLimit-Limit / -Remaining / -Reset
 * (a Unix time); a spent window is refused 429 `{message}` (v2's throttle status and words are
 * not documented: stand-ins). Routes can lose their answer after acting, or refuse (failNext).
 * Facts: ../shared/platforms/design-blogging-business.md, section 2 (Dribbble).
 */
export interface SimulatedDribbbleUser {
  id: number;
  name: string;
  login: string;
  avatar_url: string;
  can_upload_shot: boolean;
  followers_count?: number;
  teams?: { id: number; name: string; login: string }[];
}

export interface DribbbleSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addUser(user: SimulatedDribbbleUser): void;
  shots: DribbbleShots;
  /** Requests a player may make per window; tests lower it. */
  rateLimit: { limit: number; windowMs: number };
  /** Queues what the next calls of a route do (`POST /v2/shots`...), in order. */
  failNext(route: string, ...steps: FaultStep[]): void;
  /** Dribbble's 429 for a window that reopens in `seconds`, for failNext. */
  rateLimited(seconds: number): SimulatedAnswer;
  /** Requests received for one route, refused ones too. */
  requestsTo(route: string): SimulatedRequest[];
  readonly lostResponses: number;
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

const notFound: SimulatedAnswer = { status: 404, body: { message: 'Not found.' } };

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
  const faults = new FaultPlan();
  const rateLimit = { limit: 60, windowMs: 60_000 };
  const windows = new Map<number, { startedAt: number; count: number }>();
  let origin = '';
  const shots = new DribbbleShots(() => origin);

  function rateLimited(seconds: number): SimulatedAnswer {
    const reset = Math.ceil(Date.now() / 1000) + seconds;
    const headers = {
      'x-ratelimit-limit': String(rateLimit.limit), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset),
    };
    return { status: 429, body: { message: 'API rate limit exceeded.' }, headers };
  }

  /** Counts the call in the player's window: its headers, or a 429 once it is spent. */
  function windowOf(userId: number): { headers: Record<string, string>; spent: boolean } {
    const now = Date.now();
    let window = windows.get(userId);
    if (window === undefined || now - window.startedAt >= rateLimit.windowMs) {
      window = { startedAt: now, count: 0 };
      windows.set(userId, window);
    }
    window.count += 1;
    const reset = Math.ceil((window.startedAt + rateLimit.windowMs) / 1000);
    const headers = {
      'x-ratelimit-limit': String(rateLimit.limit),
      'x-ratelimit-remaining': String(Math.max(0, rateLimit.limit - window.count)),
      'x-ratelimit-reset': String(reset),
    };
    return { headers, spent: window.count > rateLimit.limit };
  }

  function answer(request: SimulatedRequest, route: string, user: SimulatedDribbbleUser): SimulatedAnswer {
    switch (route) {
      case 'GET /v2/user': {
        const htmlUrl = `https://dribbble.com/${user.login}`;
        const teams = (user.teams ?? []).map((team) => ({
          ...team, avatar_url: null, html_url: `https://dribbble.com/${team.login}`,
        }));
        const profile = { ...user, followers_count: user.followers_count ?? 0, teams };
        // `links` (web, twitter) is always there; the simulated players list none.
        const shown = { ...profile, html_url: htmlUrl, bio: '', location: null, links: {}, pro: false };
        return { status: 200, body: shown };
      }
      case 'GET /v2/user/shots': return shots.ofPlayer(request, user.id);
      case 'GET /v2/shots/:id': {
        const shot = shots.items.find((item) => String(item.id) === request.path.split('/').at(-1));
        return shot === undefined ? notFound : { status: 200, body: shots.shown(shot) };
      }
      case 'DELETE /v2/shots/:id': {
        // The player's own shot goes (204); another's or an unknown one is Dribbble's 404.
        const index = shots.items.findIndex((item) => String(item.id) === request.path.split('/').at(-1));
        if (shots.items[index]?.owner !== user.id) return notFound;
        shots.items.splice(index, 1);
        return { status: 204 };
      }
      case 'POST /v2/shots': {
        const author = { id: user.id, canUpload: user.can_upload_shot, teamIds: (user.teams ?? []).map((t) => t.id) };
        return shots.create(request, author);
      }
      default: return notFound;
    }
  }

  /**
   * Fields Dribbble cannot take: the consent page and token endpoint answer in OAuth's words, the
   * API with its 422 "Validation failed." and one error per field (v2 overview, Client Errors).
   */
  function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
    if (request.path.startsWith('/oauth/')) {
      // RFC 6749 5.2: a grant type the server does not offer (no refresh_token here) has its own code.
      const grant = problems.some((problem) => problem.startsWith('body.grant_type '));
      return grant ? tokenError('unsupported_grant_type', '')
        : { status: 400, body: { error: 'invalid_request', error_description: problems.join('; ') } };
    }
    const errors = problems.map((problem) => ({
      attribute: /^(?:body|query|path)\.([^\s.]+)/.exec(problem)?.[1] ?? 'base', message: problem,
    }));
    return { status: 422, body: { message: 'Validation failed.', errors } };
  }

  const routeOf = (request: SimulatedRequest) =>
    `${request.method} ${request.path.replace(/^\/v2\/shots\/\d+$/, '/v2/shots/:id')}`;

  async function api(request: SimulatedRequest): Promise<SimulatedAnswer> {
    const grant = authority.grantOf(bearerToken(request));
    const user = users.get(grant?.user ?? '');
    if (grant === null || user === undefined) return { status: 401, body: { message: 'Bad credentials.' } };
    const route = routeOf(request);
    if ((route === 'POST /v2/shots' || route === 'DELETE /v2/shots/:id') && !grant.scopes.includes('upload')) {
      return { status: 403, body: { message: 'This action requires the upload scope.' } };
    }
    const window = windowOf(user.id);
    if (window.spent) return rateLimited(Number(window.headers['x-ratelimit-reset']) - Math.ceil(Date.now() / 1000));
    const answered = await faults.run(route, () => answer(request, route, user));
    return { ...answered, headers: { ...window.headers, ...answered.headers } };
  }

  // Bodies up to 10 MB: Dribbble takes images of about 8 MB.
  const server = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/authorize') return authority.authorize(request);
    if (request.path === '/oauth/token') return authority.token(request);
    if (request.path.startsWith('/v2/')) return api(request);
    return undefined;
  }, notFound, {
    maxBodyBytes: 10 * 1024 * 1024,
    tooLarge: { status: 413, body: { message: 'Request too large.' } },
    operations: { check: OperationCheck.forPlatform('dribbble'), refuse },
  });
  origin = server.url;

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addUser: (user) => { users.set(String(user.id), user); },
    shots,
    rateLimit,
    failNext: (route, ...steps) => { faults.failNext(route, ...steps); },
    rateLimited,
    requestsTo: (route) => server.received.filter((request) => routeOf(request) === route),
    get lostResponses() { return faults.lostResponses; },
  };
}
