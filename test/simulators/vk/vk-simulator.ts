import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  formBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { methodParameters, vkAnswer, vkError, vkErrorText } from './vk-api-answers.ts';
import { VkMediaMethods } from './vk-media-methods.ts';
import { vkOperations } from './vk-operations.ts';
import { VkRecords, type SimulatedVkGroup, type SimulatedVkUser } from './vk-records.ts';
import { VkWallMethods, type GuidRepeatAnswer } from './vk-wall-methods.ts';

export type { SimulatedVkGroup, SimulatedVkUser } from './vk-records.ts';

/**
 * A local stand-in for VK ID (OAuth 2.1 at id.vk.com) and the API method publishing reads:
 * - `GET /authorize` with space-separated scopes and PKCE S256 required; the redirect back
 *   carries `code`, `state`, `device_id`, `type=code_v2` and `expires_in`;
 * - `POST /oauth2/auth` as a public client (client_id alone, no secret), the code exchange
 *   needing code_verifier, the redirect's `device_id` and the authorization's `state`; a refresh
 *   needing the refresh token's `device_id` and a `state`. Access tokens last an hour; refresh
 *   tokens rotate. Answers `{access_token, refresh_token, id_token, token_type, expires_in,
 *   user_id, state, scope}`; refusals `{error, error_description, state}`;
 * - `POST /oauth2/user_info` (form: client_id, access_token) answering `{user: {user_id,
 *   first_name, last_name, avatar, ...}}`, or 401 `{error: 'invalid_token', ...}` for an unknown
 *   or expired token;
 * - api.vk.com `POST /method/<name>` (form or query: access_token, v, parameters), answering
 *   `{response}` or, with HTTP 200, `{error: {error_code, error_msg, request_params}}`: users.get,
 *   groups.get, wall.post, wall.createComment, wall.get, wall.getById, wall.getComments,
 *   photos.getWallUploadServer, photos.saveWallPhoto, video.save (vk-wall-methods.ts,
 *   vk-media-methods.ts), and the upload host their `upload_url`s name (`POST /upload/...`).
 *   A user token makes at most 3 method calls a second; the fourth is refused with error 6.
 * Faults: `failNext(method, ...)` answers a method's next calls with a given error, or stores
 * what the call makes and never answers (`loseResponse`), as when the connection breaks after
 * VK accepted. Requests and answers are held to VK's description (operations.json, vk-operations.ts).
 * Facts: /work/shared/platforms/open-and-community.md 5; id.vk.com VK ID API description;
 * VKCOM/vk-api-schema (API 5.199).
 */
/** One injected answer to a method call: an error code, a whole answer, a lost answer, or none. */
export type VkInjectedFailure =
  | { error: number; message: string }
  | SimulatedAnswer
  | { loseResponse: true }
  | 'pass';

export interface RunningVkSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  records: VkRecords;
  /** The simulator's clock for `guid` windows and item dates; tests move it forward. */
  now: () => number;
  /** How VK answers a `guid` seen within the hour (vk-wall-methods.ts). */
  guidRepeat: GuidRepeatAnswer;
  /** Method calls one token may make a second before error 6. */
  requestsPerSecond: number;
  /** VK's second, shortened by tests whose adapter paces to a shorter window. */
  rateWindowMs: number;
  addGroup(group: SimulatedVkGroup): void;
  failNext(method: string, ...steps: VkInjectedFailure[]): void;
  /** Answers held back on purpose (`loseResponse`). */
  readonly lostResponses: number;
  /** The method calls received, by name. */
  calls(method: string): URLSearchParams[];
}

const clientId = '51234567';
/** VK apps have a protected key, but VK ID's exchange with PKCE never asks for it. */
const clientSecret = 'vkSimulatedSecretKey';

const vkIdScopes = [
  'vkid.personal_info', 'email', 'phone', 'friends', 'wall', 'groups', 'stories', 'docs', 'photos', 'ads', 'video',
  'status', 'market', 'pages', 'notifications', 'stats',
];

/** VK ID echoes the request's `state` in every token answer, refusals included. */
function withState(answer: SimulatedAnswer, request: SimulatedRequest): SimulatedAnswer {
  const state = request.method === 'POST' ? formBody(request).get('state') : null;
  if (state === null || typeof answer.body !== 'object' || answer.body === null) return answer;
  return { ...answer, body: { ...answer.body, state } };
}

/** VK ID's redirect also says which kind of code it is and how long it lasts. */
function withCodeType(answer: SimulatedAnswer): SimulatedAnswer {
  const location = answer.headers?.location;
  if (location === undefined) return answer;
  const back = new URL(location);
  if (back.searchParams.get('code') === null) return answer;
  back.searchParams.set('type', 'code_v2');
  back.searchParams.set('expires_in', '600');
  return { ...answer, headers: { ...answer.headers, location: back.toString() } };
}

/** Users are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startVkSimulator(users: Record<string, SimulatedVkUser>): Promise<RunningVkSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'none',
    requirePkce: true,
    knownScopes: vkIdScopes,
    scopeSeparator: ' ',
    boundParameters: ['device_id'],
    stateAtTokenEndpoint: true,
    accessTokenSeconds: 3_600,
    refreshTokens: 'rotate',
    tokenAnswer: (tokens) => ({
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken,
      id_token: `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(tokens.accessToken).toString('base64url')}.c2ln`,
      token_type: 'Bearer',
      expires_in: tokens.expiresIn,
      user_id: users[authority.userOf(tokens.accessToken) ?? '']?.id ?? 0,
      scope: tokens.scope,
    }),
  });

  const userInfo = (request: SimulatedRequest): SimulatedAnswer => {
    if (request.method !== 'POST') return { status: 405, body: { error: 'invalid_request' } };
    const form = formBody(request);
    if (form.get('client_id') !== clientId) {
      return { status: 400, body: { error: 'invalid_client', error_description: 'client_id is invalid' } };
    }
    const user = users[authority.userOf(form.get('access_token')) ?? ''];
    if (user === undefined) {
      return { status: 401, body: { error: 'invalid_token', error_description: 'access_token is missing or invalid' } };
    }
    const profile = {
      user_id: String(user.id),
      first_name: user.firstName,
      last_name: user.lastName,
      avatar: user.photo200,
      sex: 0,
      verified: false,
      birthday: '',
    };
    return { status: 200, body: { user: profile } };
  };

  const usersGet = (user: SimulatedVkUser, parameters: URLSearchParams): SimulatedAnswer => {
    const fields = (parameters.get('fields') ?? '').split(',');
    const profile = {
      id: user.id,
      first_name: user.firstName,
      last_name: user.lastName,
      can_access_closed: true,
      is_closed: false,
      ...(fields.includes('screen_name') ? { screen_name: user.screenName } : {}),
      ...(fields.includes('photo_200') ? { photo_200: user.photo200 } : {}),
      ...(fields.includes('followers_count') ? { followers_count: user.followers ?? 0 } : {}),
    };
    return vkAnswer([profile]);
  };

  const records = new VkRecords();
  let now: () => number = Date.now;
  let requestsPerSecond = 3;
  let rateWindowMs = 1_000;
  let lostResponses = 0;
  let origin = '';
  const media = new VkMediaMethods(records, () => origin);
  const wall = new VkWallMethods(records, () => now());
  const failures = new Map<string, VkInjectedFailure[]>();
  const callsByToken = new Map<string, number[]>();
  const methodCalls: { method: string; parameters: URLSearchParams }[] = [];

  type MethodHandler = (user: SimulatedVkUser, parameters: URLSearchParams) => SimulatedAnswer;
  const methods: Record<string, MethodHandler> = {
    'users.get': usersGet,
    'groups.get': (user, parameters) => {
      const managed = records.groups.filter((group) => group.managers.includes(user.id));
      if (parameters.get('extended') !== '1') {
        return vkAnswer({ count: managed.length, items: managed.map((group) => group.id) });
      }
      const items = managed.map((group) => ({
        id: group.id, name: group.name, screen_name: group.screenName, type: 'page', is_admin: 1, admin_level: 3,
        photo_200: `https://sun9-2.userapi.com/${group.screenName}.jpg`, members_count: group.members,
      }));
      return vkAnswer({ count: items.length, items });
    },
    'wall.post': (user, parameters) => wall.post(user, parameters),
    'wall.createComment': (user, parameters) => wall.createComment(user, parameters),
    'wall.get': (user, parameters) => wall.get(user, parameters),
    'wall.getById': (user, parameters) => wall.getById(user, parameters),
    'wall.getComments': (user, parameters) => wall.getComments(user, parameters),
    'wall.delete': (user, parameters) => wall.remove(user, parameters, 'wall.delete'),
    'wall.deleteComment': (user, parameters) => wall.remove(user, parameters, 'wall.deleteComment'),
    'photos.getWallUploadServer': (user, parameters) => media.getWallUploadServer(user, parameters),
    'photos.saveWallPhoto': (user, parameters) => media.saveWallPhoto(user, parameters),
    'video.save': (user, parameters) => media.videoSave(user, parameters),
  };

  /** True when this token already made `requestsPerSecond` calls within the last second. */
  const overRate = (token: string): boolean => {
    const at = Date.now();
    const recent = (callsByToken.get(token) ?? []).filter((time) => at - time < rateWindowMs);
    const over = recent.length >= requestsPerSecond;
    if (!over) recent.push(at);
    callsByToken.set(token, recent);
    return over;
  };

  const callMethod = (request: SimulatedRequest, name: string): SimulatedAnswer | Promise<SimulatedAnswer> => {
    const parameters = methodParameters(request);
    methodCalls.push({ method: name, parameters });
    const handler = methods[name];
    if (handler === undefined) return vkError(3, 'Unknown method passed', name);
    if (parameters.get('v') === null) return vkError(8, 'Invalid request: v (version) is required', name);
    const token = parameters.get('access_token') ?? '';
    const user = users[authority.userOf(token) ?? ''];
    if (user === undefined) return vkError(5, vkErrorText.authFailed, name);
    if (overRate(token)) return vkError(6, vkErrorText.tooManyPerSecond, name);
    const step = failures.get(name)?.shift() ?? 'pass';
    if (step === 'pass') return handler(user, parameters);
    if ('loseResponse' in step) {
      handler(user, parameters);
      lostResponses += 1;
      // VK made the item; the answer never comes and the client gives up on its own timeout.
      return new Promise<SimulatedAnswer>(() => undefined);
    }
    if ('error' in step) return vkError(step.error, step.message, name);
    return step;
  };

  const notFound: SimulatedAnswer = { status: 404, body: 'Not Found' };
  const server = await startSimulatorServer((request) => {
    if (request.path === '/authorize' && request.method === 'GET') return withCodeType(authority.authorize(request));
    if (request.path === '/oauth2/auth') return withState(authority.token(request), request);
    if (request.path === '/oauth2/user_info') return userInfo(request);
    const method = /^\/method\/([\w.]+)$/.exec(request.path);
    if (method !== null) return callMethod(request, method[1] ?? '');
    const upload = /^\/upload\/(photo|video)\/([0-9a-f]+)$/.exec(request.path);
    if (upload !== null) return media.upload(request, upload[1] ?? '', upload[2] ?? '');
    return notFound;
  }, notFound, { operations: vkOperations() });
  origin = server.url;
  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    records,
    get now() { return now; },
    set now(clock: () => number) { now = clock; },
    get guidRepeat() { return wall.guidRepeat; },
    set guidRepeat(answer: GuidRepeatAnswer) { wall.guidRepeat = answer; },
    get requestsPerSecond() { return requestsPerSecond; },
    set requestsPerSecond(limit: number) { requestsPerSecond = limit; },
    get rateWindowMs() { return rateWindowMs; },
    set rateWindowMs(window: number) { rateWindowMs = window; },
    addGroup: (group) => { records.groups.push(group); },
    failNext: (method, ...steps) => { failures.set(method, [...(failures.get(method) ?? []), ...steps]); },
    get lostResponses() { return lostResponses; },
    calls: (method) => methodCalls.filter((call) => call.method === method).map((call) => call.parameters),
  };
}
