import { OAuthAuthority } from '../kit/oauth-authority.ts';
import { googleOperations } from './google-operations.ts';
import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for the Google hosts SPS talks to when connecting YouTube and Google Business
 * Profile, served from one origin (their paths do not collide):
 * - accounts.google.com `GET /o/oauth2/v2/auth` and oauth2.googleapis.com `POST /token`, with
 *   Google's habits: client credentials in the form or as Basic, PKCE optional but checked when
 *   sent, space-separated scopes, one-hour access tokens, refresh tokens never rotated and not
 *   sent back on a refresh, and Google's own refusal words (`Unauthorized`, `Bad Request`,
 *   `Token has been expired or revoked.`);
 * - www.googleapis.com `GET /youtube/v3/channels?part=snippet&mine=true`;
 * - mybusinessaccountmanagement.googleapis.com `GET /v1/accounts` and
 *   mybusinessbusinessinformation.googleapis.com `GET /v1/accounts/{id}/locations?readMask=...`,
 *   paginated with `pageToken`.
 * API calls with an unknown or expired bearer answer Google's 401 `UNAUTHENTICATED` body.
 * Requests and answers are held to the APIs' descriptions (operations.json, google-operations.ts).
 * Facts: /work/shared/platforms/oauth-majors.md 7, design-blogging-business.md 7.
 */
export interface SimulatedYoutubeChannel {
  id: string;
  title: string;
  customUrl: string;
  thumbnail: string;
}

export interface SimulatedBusinessAccount {
  /** `accounts/123`. */
  name: string;
  accountName: string;
  /** `locations/456` and the business's title. */
  locations: { name: string; title: string }[];
}

export interface SimulatedGoogleUser {
  channels: SimulatedYoutubeChannel[];
  businessAccounts: SimulatedBusinessAccount[];
}

/**
 * More of Google's APIs on the same origin, as www.googleapis.com serves them (YouTube publishing:
 * youtube-simulator.ts): `routes` answers first (undefined passes the request on), with the user
 * the bearer token acts for; `channelParts` adds parts of channels.list (statistics...).
 */
export interface GoogleSimulatorExtensions {
  routes?: (request: SimulatedRequest, user: SimulatedGoogleUser | undefined) =>
    SimulatedAnswer | Promise<SimulatedAnswer> | undefined;
  channelParts?: (channel: SimulatedYoutubeChannel, parts: readonly string[]) => Record<string, unknown>;
}

export interface RunningGoogleSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** Users by the id the authority hands out (`authority.consentingUser`). */
  users: Map<string, SimulatedGoogleUser>;
}

const clientId = '1234567890-sps.apps.googleusercontent.com';
const clientSecret = 'GOCSPX-simulated-secret';

/** Google pages lists: a small page size here so SPS's paging is exercised. */
const pageSize = 2;

const scopeBase = 'https://www.googleapis.com/auth/';

export function googleError(code: number, status: string, message: string, reason: string): SimulatedAnswer {
  return { status: code, body: { error: { code, message, errors: [{ message, domain: 'global', reason }], status } } };
}

export const unauthenticated = googleError(
  401,
  'UNAUTHENTICATED',
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid '
    + 'authentication credential.',
  'authError',
);
const notFound = googleError(404, 'NOT_FOUND', 'The requested URL was not found on this server.', 'notFound');

/** Google's token endpoint words, which differ from RFC 6749's examples. */
function googleTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return { status: 401, body: { error, error_description: 'Unauthorized' } };
  if (error === 'invalid_grant') {
    const words = /refresh token/i.test(description) ? 'Token has been expired or revoked.' : 'Bad Request';
    return { status: 400, body: { error, error_description: words } };
  }
  return { status: 400, body: { error, error_description: description } };
}

/** One page of `items` from `pageToken` (an offset here; opaque to the client). */
export function page<T>(items: readonly T[], request: SimulatedRequest): { slice: T[]; next: string | undefined } {
  const start = Number(request.query.get('pageToken') ?? '0');
  const slice = items.slice(start, start + pageSize);
  return { slice, next: start + pageSize < items.length ? String(start + pageSize) : undefined };
}

function youtubeChannels(
  request: SimulatedRequest,
  user: SimulatedGoogleUser,
  extensions: GoogleSimulatorExtensions,
): SimulatedAnswer {
  const parts = (request.query.get('part') ?? '').split(',');
  if (parts[0] === '') return googleError(400, 'INVALID_ARGUMENT', 'No part parameter selected', 'required');
  if (request.query.get('mine') !== 'true') {
    const message = 'No filter selected. Expected one of: mine, id, forHandle, forUsername';
    return googleError(400, 'INVALID_ARGUMENT', message, 'missingRequiredParameter');
  }
  const items = user.channels.map((channel) => ({
    kind: 'youtube#channel',
    etag: `etag-${channel.id}`,
    id: channel.id,
    ...(parts.includes('snippet') ? {
      snippet: {
        title: channel.title,
        description: '',
        customUrl: channel.customUrl,
        publishedAt: '2020-01-01T00:00:00Z',
        thumbnails: { default: { url: channel.thumbnail, width: 88, height: 88 } },
        localized: { title: channel.title, description: '' },
      },
    } : {}),
    ...extensions.channelParts?.(channel, parts),
  }));
  const listed = { totalResults: items.length, resultsPerPage: 5 };
  // A Google account without a channel gets no `items` at all.
  const body = { kind: 'youtube#channelListResponse', etag: 'list', pageInfo: listed };
  return { status: 200, body: items.length > 0 ? { ...body, items } : body };
}

function businessAccounts(request: SimulatedRequest, user: SimulatedGoogleUser): SimulatedAnswer {
  const { slice, next } = page(user.businessAccounts, request);
  const accounts = slice.map((account) => ({
    name: account.name, accountName: account.accountName, type: 'PERSONAL', verificationState: 'UNVERIFIED',
  }));
  return { status: 200, body: { accounts, ...(next === undefined ? {} : { nextPageToken: next }) } };
}

function businessLocations(request: SimulatedRequest, user: SimulatedGoogleUser, account: string): SimulatedAnswer {
  const held = user.businessAccounts.find((candidate) => candidate.name === account);
  if (held === undefined) {
    return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission', 'forbidden');
  }
  const mask = (request.query.get('readMask') ?? '').split(',').filter((field) => field !== '');
  if (mask.length === 0) {
    return googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'badRequest');
  }
  const { slice, next } = page(held.locations, request);
  const locations = slice.map((location) => Object.fromEntries(
    Object.entries(location).filter(([field]) => mask.includes(field)),
  ));
  return { status: 200, body: { locations, ...(next === undefined ? {} : { nextPageToken: next }) } };
}

export async function startGoogleSimulator(
  users: Record<string, SimulatedGoogleUser>,
  extensions: GoogleSimulatorExtensions = {},
): Promise<RunningGoogleSimulator> {
  const known = new Map(Object.entries(users));
  const handedOut = new Set<string>();
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic-or-body',
    requirePkce: false,
    knownScopes: ['youtube.upload', 'youtube.readonly', 'youtube.force-ssl', 'yt-analytics.readonly', 'business.manage']
      .map((scope) => `${scopeBase}${scope}`),
    accessTokenSeconds: 3599,
    refreshTokens: 'reuse',
    tokenError: googleTokenError,
    tokenAnswer: (tokens) => {
      // Google sends the refresh token with the code exchange only; refreshing returns none.
      const fresh = tokens.refreshToken !== null && !handedOut.has(tokens.refreshToken);
      if (tokens.refreshToken !== null) handedOut.add(tokens.refreshToken);
      return {
        access_token: tokens.accessToken,
        expires_in: tokens.expiresIn,
        scope: tokens.scope,
        token_type: 'Bearer',
        ...(fresh ? { refresh_token: tokens.refreshToken } : {}),
      };
    },
  });

  const server = await startSimulatorServer((request) => {
    if (request.path === '/o/oauth2/v2/auth' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/token') return authority.token(request);
    const userId = authority.userOf(bearerToken(request));
    const user = userId === null ? undefined : known.get(userId);
    const extended = extensions.routes?.(request, user);
    if (extended !== undefined) return extended;
    if (request.method !== 'GET') return notFound;
    if (user === undefined) return unauthenticated;
    if (request.path === '/youtube/v3/channels') return youtubeChannels(request, user, extensions);
    if (request.path === '/v1/accounts') return businessAccounts(request, user);
    const locations = /^\/v1\/(accounts\/[^/]+)\/locations$/.exec(request.path);
    if (locations?.[1] !== undefined) return businessLocations(request, user, locations[1]);
    return notFound;
  }, notFound, { operations: googleOperations() });
  return { ...server, authority, clientId, clientSecret, users: known };
}
