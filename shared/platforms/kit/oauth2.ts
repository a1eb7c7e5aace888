import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { OAuth2Client, OAuth2Provider } from './oauth2-provider.ts';
import type { UserTokens } from './platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from './platform-error.ts';
import { platformRequest } from './platform-http.ts';

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  /** The PKCE challenge, when the provider uses PKCE. */
  codeChallenge: string | null;
}

/** Where to send the user: the platform's consent page for this client, state and challenge. */
export function authorizationUrl(
  provider: OAuth2Provider,
  client: OAuth2Client,
  request: AuthorizationRequest,
): string {
  const url = new URL(provider.authorizeUrl);
  const parameters: Record<string, string> = {
    response_type: 'code',
    [provider.clientIdParameter ?? 'client_id']: client.clientId,
    redirect_uri: request.redirectUri,
    scope: provider.scopes.join(provider.scopeSeparator ?? ' '),
    state: request.state,
    ...provider.authorizeParameters,
  };
  if (provider.pkce && request.codeChallenge !== null) {
    parameters.code_challenge = request.codeChallenge;
    parameters.code_challenge_method = 'S256';
  }
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}

const standardTokens = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional().nullable(),
  expires_in: z.coerce.number().positive().optional().nullable(),
});

/** RFC 6749 section 5.1: the token answer's standard fields. */
export function readStandardTokens(body: unknown, now: Date): UserTokens | null {
  const parsed = standardTokens.safeParse(body);
  if (!parsed.success) return null;
  const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn } = parsed.data;
  return {
    accessToken,
    refreshToken: refreshToken ?? null,
    expiresAt: expiresIn === undefined || expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000),
  };
}

const oauthErrorBody = z
  .object({
    // Most send a code; Reddit sends the HTTP status as a number, Meta an object with the message.
    error: z.union([z.string(), z.number(), z.object({ message: z.string() }).loose()]).optional(),
    error_description: z.string().optional(),
    message: z.string().optional(),
  })
  .loose();

/** The platform's own words from an OAuth error answer (RFC 6749 section 5.2, or its variant). */
export function oauthErrorMessage(body: unknown): string | undefined {
  const parsed = oauthErrorBody.safeParse(body);
  if (!parsed.success) return typeof body === 'string' && body !== '' ? body.slice(0, 500) : undefined;
  const { error, error_description: description, message } = parsed.data;
  const code = typeof error === 'string' ? error : typeof error === 'number' ? undefined : error?.message;
  if (description !== undefined) return code === undefined ? description : `${description} (${code})`;
  return message ?? code;
}

function oauthErrorCode(body: unknown): string | undefined {
  const parsed = oauthErrorBody.safeParse(body);
  return parsed.success && typeof parsed.data.error === 'string' ? parsed.data.error : undefined;
}

export interface TokenCallOptions {
  timeoutMs: number;
  /** Set for a server whose address the user gave (a Mastodon instance). */
  userHost?: ConnectionPolicy;
  now?: Date;
}

async function tokenRequest(
  provider: OAuth2Provider,
  client: OAuth2Client,
  grant: Record<string, string>,
  options: TokenCallOptions,
  classify: (status: number, body: unknown) => PlatformErrorKind | undefined,
): Promise<UserTokens> {
  const form: Record<string, string> = { ...grant };
  const headers: Record<string, string> = {};
  const clientIdName = provider.clientIdParameter ?? 'client_id';
  if (provider.clientAuthentication === 'basic' && client.clientSecret !== null) {
    // RFC 6749 2.3.1: both parts form-urlencoded before the Basic encoding.
    const user = encodeURIComponent(client.clientId);
    const password = encodeURIComponent(client.clientSecret);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  } else {
    form[clientIdName] = client.clientId;
    if (provider.clientAuthentication === 'body' && client.clientSecret !== null)
      form.client_secret = client.clientSecret;
  }
  const body = await platformRequest({
    provider: provider.platform,
    method: 'POST',
    url: provider.tokenUrl,
    headers,
    form,
    timeoutMs: options.timeoutMs,
    errorMessage: (answer) => provider.errorMessage?.(answer) ?? oauthErrorMessage(answer),
    classify,
    ...(options.userHost === undefined ? {} : { userHost: options.userHost }),
  });
  const now = options.now ?? new Date();
  const tokens = (provider.readTokens ?? readStandardTokens)(body, now, grant);
  if (tokens === null) {
    const message =
      oauthErrorMessage(body) ?? `${provider.platform} answered the token request without an access token`;
    throw new PlatformError({ kind: 'permanent', provider: provider.platform, message });
  }
  return tokens;
}

export interface CodeExchange {
  code: string;
  redirectUri: string;
  codeVerifier: string | null;
  /** The authorization's state, sent where the provider says `exchangeWithState`. */
  state?: string;
  /** The redirect's query values; those the provider lists in `callbackParameters` are sent. */
  callback?: Readonly<Record<string, string>>;
}

/**
 * Exchanges the code the platform sent back for tokens. Any refusal (a used or expired code, a
 * wrong verifier or redirect URI) is `permanent`: the user starts again, nothing is saved.
 */
export function exchangeAuthorizationCode(
  provider: OAuth2Provider,
  client: OAuth2Client,
  exchange: CodeExchange,
  options: TokenCallOptions,
): Promise<UserTokens> {
  const grant: Record<string, string> = {
    grant_type: 'authorization_code',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
  };
  if (provider.pkce && exchange.codeVerifier !== null) grant.code_verifier = exchange.codeVerifier;
  if (provider.exchangeWithState === true && exchange.state !== undefined) grant.state = exchange.state;
  for (const name of provider.callbackParameters ?? []) {
    const value = exchange.callback?.[name];
    if (value !== undefined) grant[name] = value;
  }
  return tokenRequest(provider, client, grant, options, (status) =>
    status >= 500 || status === 429 ? undefined : 'permanent',
  );
}

/** Error codes with which a token endpoint says the refresh token itself is dead (RFC 6749 5.2). */
const refusedGrant = new Set(['invalid_grant', 'unauthorized_client', 'invalid_client']);

/**
 * Renews the access token. The platform's refusal of the refresh token (`invalid_grant` and
 * its kin) is `disconnected`: the user must reconnect. Anything else the platform could answer
 * better later (throttling, 5xx, network) stays `retryable`, so the stored refresh token is kept.
 */
export async function refreshAccessToken(
  provider: OAuth2Provider,
  client: OAuth2Client,
  refreshToken: string,
  options: TokenCallOptions,
  /** What the platform wants beside the refresh token (VK ID: the device id and a state). */
  parameters: Readonly<Record<string, string>> = {},
): Promise<UserTokens> {
  const tokens = await tokenRequest(
    provider,
    client,
    { ...parameters, grant_type: 'refresh_token', refresh_token: refreshToken },
    options,
    (status, body) => {
      if (status === 429 || status >= 500) return 'retryable';
      const code = oauthErrorCode(body);
      return code !== undefined && refusedGrant.has(code) ? 'disconnected' : 'permanent';
    },
  );
  // A platform that does not rotate refresh tokens sends none back: the one held stays valid.
  return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
}
