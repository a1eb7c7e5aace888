import { z } from 'zod';
import type { ConnectContext, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';

/**
 * What Meta's Graph hosts share (graph.facebook.com, graph.instagram.com, graph.threads.net):
 * the error envelope, the error codes that mean "token dead" or "slow down", and the trade of a
 * token for a longer-lived one. Facebook, both Instagram rooms and Threads read them from here.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5, 5.1 and 6.1.
 */

/**
 * One Graph API version for every call SPS makes to graph.facebook.com and graph.instagram.com:
 * v26.0 (July 2026) is the newest in Meta's changelog and stays callable the longest.
 */
export const graphApiVersion = 'v26.0';

/** `{error: {message, type, code, error_subcode, fbtrace_id}}`, on every Graph host. */
const graphErrorBody = z.object({
  error: z.object({ message: z.string(), code: z.number().optional(), error_subcode: z.number().optional() }).loose(),
});

/** `{error_type, code, error_message}`, from api.instagram.com, Instagram Login's token host. */
const instagramTokenErrorBody = z.object({
  error_type: z.string(),
  code: z.number().optional(),
  error_message: z.string(),
});

function readGraphError(body: unknown): { message: string; code: number | undefined } | null {
  const graph = graphErrorBody.safeParse(body);
  if (graph.success) return { message: graph.data.error.message, code: graph.data.error.code };
  const instagram = instagramTokenErrorBody.safeParse(body);
  return instagram.success ? { message: instagram.data.error_message, code: instagram.data.code } : null;
}

export function graphErrorMessage(body: unknown): string | undefined {
  const error = readGraphError(body);
  if (error !== null) return error.message;
  return typeof body === 'string' && body !== '' ? body.slice(0, 500) : undefined;
}

/** 190: the token is invalid, expired or revoked; 102: the session behind it ended. */
const deadToken = new Set([190, 102]);
/** 1, 2: Meta's own trouble; 4, 17, 32, 613, 341 and 80001-80014: call-rate limits. */
const passing = new Set([1, 2, 4, 17, 32, 341, 613]);

/**
 * Meta answers most errors with HTTP 400 whatever they mean, so the kind comes from the code:
 * a dead token is `disconnected`, throttling and Meta's own failures `retryable`; anything
 * else is left to the HTTP status.
 */
export function classifyGraphError(status: number, body: unknown): PlatformErrorKind | undefined {
  const code = readGraphError(body)?.code;
  if (code !== undefined && deadToken.has(code)) return 'disconnected';
  if (code !== undefined && (passing.has(code) || (code >= 80001 && code <= 80014))) return 'retryable';
  return status === 429 || status >= 500 ? 'retryable' : undefined;
}

export interface GraphGet {
  provider: string;
  url: string;
  query: Record<string, string>;
  timeoutMs: number;
  /** How a refusal that is neither a dead token nor throttling counts (the HTTP status by default). */
  refusal?: PlatformErrorKind;
}

/** A GET on a Graph host, the token in `access_token` as Meta's references show it. */
export function graphGet(request: GraphGet): Promise<unknown> {
  const url = new URL(request.url);
  for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
  const { refusal } = request;
  return platformRequest({
    provider: request.provider,
    method: 'GET',
    url: url.toString(),
    timeoutMs: request.timeoutMs,
    errorMessage: graphErrorMessage,
    classify: (status, body) => {
      const kind = classifyGraphError(status, body);
      if (kind !== undefined || refusal === undefined) return kind;
      return status >= 400 && status < 500 ? refusal : undefined;
    },
  });
}

/** `{access_token, token_type, expires_in}`, the answer of every Meta token trade. */
const tradedToken = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional().nullable(),
});

export interface TradedToken {
  accessToken: string;
  /** Null when Meta gave no lifetime. */
  expiresAt: Date | null;
}

/** A Graph GET that answers a new token (long-lived exchange, refresh). */
export async function tradeToken(request: GraphGet, now: Date = new Date()): Promise<TradedToken> {
  const body = await graphGet(request);
  const parsed = tradedToken.safeParse(body);
  if (!parsed.success) {
    const message = `${request.provider} answered the token exchange without an access token`;
    throw new PlatformError({ kind: 'permanent', provider: request.provider, message, cause: parsed.error });
  }
  const expiresIn = parsed.data.expires_in ?? null;
  return {
    accessToken: parsed.data.access_token,
    expiresAt: expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000),
  };
}

/** Connecting needs the operator's app secret for the token trades; the api checks it is set first. */
export function appSecretOf(
  provider: string,
  app: { clientId: string | null; clientSecret: string | null },
): { clientId: string; clientSecret: string } {
  if (app.clientId === null || app.clientSecret === null) {
    const message = `${provider} has no client id and secret configured`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  return { clientId: app.clientId, clientSecret: app.clientSecret };
}

/**
 * Instagram Login and Threads: the code's one-hour token traded for a 60-day one on the API host
 * (`GET /access_token?grant_type=<exchange grant>&client_secret&access_token`).
 */
export function longLivedToken(
  provider: string,
  grantType: 'ig_exchange_token' | 'th_exchange_token',
  shortLived: string,
  context: ConnectContext,
): Promise<TradedToken> {
  const { clientSecret } = appSecretOf(provider, context.app);
  return tradeToken({
    provider,
    url: `${context.app.apiUrl}/access_token`,
    query: { grant_type: grantType, client_secret: clientSecret, access_token: shortLived },
    timeoutMs: context.timeoutMs,
    refusal: 'permanent',
  });
}

/**
 * Instagram Login and Threads renew a long-lived token with itself (it is its own refresh token)
 * once it is a day old and before it expires. The platform's refusal means the token is dead
 * (expired, revoked, permission withdrawn): the channel must be reconnected.
 */
export async function renewLongLivedToken(
  provider: string,
  grantType: 'ig_refresh_token' | 'th_refresh_token',
  longLived: string,
  context: ConnectContext,
): Promise<UserTokens> {
  const renewed = await tradeToken({
    provider,
    url: `${context.app.apiUrl}/refresh_access_token`,
    query: { grant_type: grantType, access_token: longLived },
    timeoutMs: context.timeoutMs,
    refusal: 'disconnected',
  }, context.now?.());
  return { accessToken: renewed.accessToken, refreshToken: renewed.accessToken, expiresAt: renewed.expiresAt };
}

/** One entry of `X-Business-Use-Case-Usage`: how long until the Page or account may call again. */
