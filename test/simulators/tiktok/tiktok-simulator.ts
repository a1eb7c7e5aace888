import { OAuthAuthority } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { maxLastChunkBytes } from './chunk-rules.ts';
import { creatorInfoAnswer, defaultCreator, type SimulatedCreator } from './creators.ts';
import { initPhotos, initVideo, type InitContext } from './publish-init.ts';
import { TikTokPublishing } from './publishes.ts';
import { RateWindows } from './rate-limits.ts';
import { logId, refusals, tiktokData, tiktokError } from './tiktok-answers.ts';
import { putChunk } from './upload-puts.ts';
import { listVideos, queryVideos } from './video-queries.ts';

/**
 * A local stand-in for TikTok's Login Kit (web), API v2 and the Content Posting API:
 * - www.tiktok.com `GET /v2/auth/authorize/` with `client_key` (not client_id), comma-separated
 *   scopes, no PKCE (the web flow has none);
 * - open.tiktokapis.com `POST /v2/oauth/token/` with client_key and client_secret in the form,
 *   answering `{access_token, expires_in: 86400, open_id, refresh_token, refresh_expires_in,
 *   scope, token_type}`; refresh tokens rotate (the old one is refused once used); refusals are
 *   `{error, error_description, log_id}` sent with HTTP 200, as TikTok's token endpoint does;
 * - `GET /v2/user/info/?fields=...`: profile fields, and the counters with user.info.stats;
 * - the Content Posting API: `creator_info/query`, the three inits (publish-init.ts), the upload
 *   host's chunk PUTs (upload-puts.ts), `status/fetch` over the publishes' lives (publishes.ts),
 *   photos and videos pulled by URL (pulled-files.ts);
 * - the Display API's `video/query` and `video/list` (video-queries.ts).
 * Every API answer is `{data, error: {code, message, log_id}}`; a missing or expired token gets
 * 401 `access_token_invalid`, a scope the user did not grant 401 `scope_not_authorized`, a spent
 * minute 429 `rate_limit_exceeded` (rate-limits.ts). Any route can be made to answer otherwise or
 * to act and lose its answer (`failNext`). Facts: /work/shared/platforms/oauth-majors.md 8.
 */
export interface SimulatedTikTokUser {
  openId: string;
  unionId: string;
  displayName: string;
  username: string;
  avatarUrl: string;
  /** What creator_info answers and the account's counters; defaults for what is left out. */
  creator?: Partial<SimulatedCreator>;
  /** Scopes the user unticked on TikTok's consent page: their tokens lack them. */
  declinedScopes?: string[];
}

/**
 * What the next request to a route gets instead of its normal answer: an answer (nothing is
 * done), `lose` (the work is done and the connection breaks before the answer), or 'pass'.
 */
export type InjectedStep = SimulatedAnswer | { lose: true } | 'pass';

/** The developer app as TikTok's portal knows it. */
export interface SimulatedTikTokApp {
  /** Not yet audited: posts must be SELF_ONLY. */
  unaudited: boolean;
  /** URL prefixes verified for PULL_FROM_URL. */
  verifiedUrlPrefixes: string[];
}

export interface RunningTikTokSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  app: SimulatedTikTokApp;
  publishing: TikTokPublishing;
  rates: RateWindows;
  /** The creator settings of a user (by the authority's user key), to read or change. */
  creator(user: string): SimulatedCreator;
  /** Steps for the next requests to `route` ("POST /v2/post/publish/video/init/", "PUT /video/"), in order. */
  failNext(route: string, ...steps: InjectedStep[]): void;
  requestsTo(route: string): SimulatedRequest[];
  /** Answers cut off on purpose. */
  readonly lostAnswers: number;
}

const clientId = 'awsimulatedclientkey';
const clientSecret = 'simulated-client-secret';

const notFound = refusals.notFound();

const profileFields = ['open_id', 'union_id', 'avatar_url', 'display_name', 'username'] as const;
const statsFields = ['follower_count', 'following_count', 'likes_count', 'video_count'] as const;

/** Scopes a route needs: any one of them (status reads serve both ways of posting). */
const routeScopes: Record<string, readonly string[]> = {
  'GET /v2/user/info/': ['user.info.basic'],
  'POST /v2/post/publish/creator_info/query/': ['video.publish'],
  'POST /v2/post/publish/video/init/': ['video.publish'],
  'POST /v2/post/publish/inbox/video/init/': ['video.upload'],
  'POST /v2/post/publish/content/init/': ['video.publish', 'video.upload'],
  'POST /v2/post/publish/status/fetch/': ['video.publish', 'video.upload'],
  'POST /v2/video/query/': ['video.list'],
  'POST /v2/video/list/': ['video.list'],
};

function userInfo(request: SimulatedRequest, user: SimulatedTikTokUser, creator: SimulatedCreator,
  videoCount: number, scopes: string[]): SimulatedAnswer {
  const fields = (request.query.get('fields') ?? '').split(',').filter((field) => field !== '');
  const known: readonly string[] = [...profileFields, ...statsFields];
  const unknown = fields.filter((field) => !known.includes(field));
  if (fields.length === 0 || unknown.length > 0) {
    return refusals.invalidParams(`Invalid fields: ${unknown.join(',') || '(none)'}`);
  }
  const wantsStats = fields.some((field) => (statsFields as readonly string[]).includes(field));
  if (wantsStats && !scopes.includes('user.info.stats')) {
    return refusals.scopeMissing('user.info.stats');
  }
  const values: Record<string, string | number> = {
    open_id: user.openId,
    union_id: user.unionId,
    avatar_url: user.avatarUrl,
    display_name: user.displayName,
    username: user.username,
    follower_count: creator.followerCount,
    following_count: creator.followingCount,
    likes_count: creator.likesCount,
    video_count: videoCount,
  };
  return tiktokData({ user: Object.fromEntries(fields.map((field) => [field, values[field]])) });
}

/**
 * A request TikTok's reference does not allow, refused by the host that got it: the token
 * endpoint's `{error, error_description, log_id}` with HTTP 200, the consent page's OAuth error,
 * and elsewhere `invalid_params` in the API's envelope (oauth-majors.md 8.5).
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  if (request.path === '/v2/oauth/token/') {
    return { status: 200, body: { error: 'invalid_request', error_description: reasons, log_id: logId() } };
  }
  if (request.path === '/v2/auth/authorize/') {
    return { status: 400, body: { error: 'invalid_request', error_description: reasons } };
  }
  return refusals.invalidParams(reasons);
}

/** Users are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startTikTokSimulator(
  users: Record<string, SimulatedTikTokUser>,
): Promise<RunningTikTokSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientIdParameter: 'client_key',
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes: [
      'user.info.basic', 'user.info.profile', 'user.info.stats', 'video.list', 'video.publish', 'video.upload',
    ],
    scopeSeparator: ',',
    accessTokenSeconds: 86_400,
    refreshTokens: 'rotate',
    tokenError: (error, description) => ({
      status: 200,
      body: { error, error_description: description, log_id: logId() },
    }),
    tokenAnswer: (tokens) => ({
      access_token: tokens.accessToken,
      expires_in: tokens.expiresIn,
      open_id: users[authority.userOf(tokens.accessToken) ?? '']?.openId ?? '',
      refresh_token: tokens.refreshToken,
      refresh_expires_in: 31_536_000,
      scope: tokens.scope.split(' ').join(','),
      token_type: 'Bearer',
    }),
  });
  const creators = new Map<string, SimulatedCreator>();
  const creatorOf = (key: string): SimulatedCreator => {
    let creator = creators.get(key);
    if (creator === undefined) {
      creator = { ...defaultCreator, ...users[key]?.creator };
      creators.set(key, creator);
    }
    return creator;
  };
  const publishing = new TikTokPublishing();
  const rates = new RateWindows();
  const app: SimulatedTikTokApp = { unaudited: false, verifiedUrlPrefixes: [] };
  const injected = new Map<string, InjectedStep[]>();
  let lostAnswers = 0;
  let baseUrl = '';

  function answerRoute(request: SimulatedRequest, route: string, key: string, scopes: string[]): SimulatedAnswer {
    const user = users[key];
    if (user === undefined) return refusals.tokenInvalid();
    const creator = creatorOf(key);
    const context: InitContext = {
      openId: user.openId, creator, publishing, unaudited: app.unaudited,
      verifiedUrlPrefixes: app.verifiedUrlPrefixes, uploadBase: baseUrl,
    };
    const own = () => publishing.posts().filter((post) => post.openId === user.openId);
    switch (route) {
      case 'GET /v2/user/info/': return userInfo(request, user, creator, own().length, scopes);
      case 'POST /v2/post/publish/creator_info/query/': return creatorInfoAnswer(creator, user);
      case 'POST /v2/post/publish/video/init/': return initVideo(request, context, 'DIRECT_POST');
      case 'POST /v2/post/publish/inbox/video/init/': return initVideo(request, context, 'MEDIA_UPLOAD');
      case 'POST /v2/post/publish/content/init/': {
        // The scope follows the mode: Direct Post needs video.publish, an inbox upload video.upload.
        const mode = (jsonBody(request) as { post_mode?: unknown } | undefined)?.post_mode;
        const needed = mode === 'MEDIA_UPLOAD' ? 'video.upload' : 'video.publish';
        if (!scopes.includes(needed)) return refusals.scopeMissing(needed);
        return initPhotos(request, context);
      }
      case 'POST /v2/post/publish/status/fetch/': {
        const id = (jsonBody(request) as { publish_id?: unknown } | undefined)?.publish_id;
        const publish = typeof id === 'string' ? publishing.publishes.get(id) : undefined;
        if (publish === undefined || publish.openId !== user.openId) {
          return refusals.invalidParams('The publish_id does not exist or does not belong to this user.');
        }
        return tiktokData(publishing.status(publish));
      }
      case 'POST /v2/video/query/': return queryVideos(request, own(), user.username);
      case 'POST /v2/video/list/': return listVideos(request, own(), user.username);
      default: return notFound;
    }
  }

  /** The step injected for this request; 'pass' when none. */
  const nextStep = (route: string): InjectedStep => injected.get(route)?.shift() ?? 'pass';

  function withStep(step: InjectedStep, act: () => SimulatedAnswer): SimulatedAnswer {
    if (step !== 'pass' && !('lose' in step)) return step;
    const answer = act();
    if (step === 'pass') return answer;
    lostAnswers += 1;
    return { ...answer, lose: true };
  }

  function answerApi(request: SimulatedRequest): SimulatedAnswer {
    const route = `${request.method} ${request.path}`;
    const needed = routeScopes[route];
    if (needed === undefined) return notFound;
    const token = bearerToken(request);
    const grant = authority.grantOf(token);
    if (grant === null || token === null) return refusals.tokenInvalid();
    const declined = users[grant.user]?.declinedScopes ?? [];
    const scopes = grant.scopes.filter((scope) => !declined.includes(scope));
    if (!needed.some((scope) => scopes.includes(scope))) return refusals.scopeMissing(needed.join(' or '));
    if (rates.spend(token, route)) return refusals.rateLimited();
    return withStep(nextStep(route), () => answerRoute(request, route, grant.user, scopes));
  }

  // The upload host takes chunks of up to 64 MB (the last up to 128 MB).
  const tooLarge = tiktokError(413, 'invalid_file_upload', 'The chunk is larger than TikTok takes.');
  const server = await startSimulatorServer((request) => {
    if (request.path === '/v2/auth/authorize/' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/v2/oauth/token/') return authority.token(request);
    if (request.path === '/video/' && request.method === 'PUT') {
      return withStep(nextStep('PUT /video/'), () => putChunk(request, publishing));
    }
    if (request.path.startsWith('/v2/')) return answerApi(request);
    return notFound;
  }, notFound, {
    maxBodyBytes: maxLastChunkBytes + 1024,
    tooLarge,
    operations: { check: OperationCheck.forPlatform('tiktok'), refuse },
  });
  baseUrl = server.url;

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    app,
    publishing,
    rates,
    creator: creatorOf,
    failNext: (route, ...steps) => { injected.set(route, [...(injected.get(route) ?? []), ...steps]); },
    requestsTo: (route) => server.received.filter((request) => `${request.method} ${request.path}` === route),
    get lostAnswers() { return lostAnswers; },
  };
}
