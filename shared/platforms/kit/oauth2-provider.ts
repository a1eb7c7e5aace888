import type { UserTokens } from './user-tokens.ts';

/**
 * One platform's OAuth 2.0 authorization-code endpoints and habits, as its room declares them.
 * Everything a platform does differently from RFC 6749 is a field here, so oauth2.ts stays one
 * implementation for all of them.
 */
export interface OAuth2Provider {
  /** The platform's identifier, for error messages and logs. */
  platform: string;
  authorizeUrl: string;
  tokenUrl: string;
  scopes: readonly string[];
  /** Most platforms separate scopes with a space; some (TikTok, Facebook) with a comma. */
  scopeSeparator?: ' ' | ',';
  /** S256 PKCE where the platform supports it. */
  pkce: boolean;
  /**
   * How the client authenticates at the token endpoint: HTTP Basic (RFC 6749 2.3.1), the
   * client id and secret in the form body, or the client id alone (public clients with PKCE).
   */
  clientAuthentication: 'basic' | 'body' | 'none';
  /** The parameter name of the client id, where the platform renamed it (TikTok: client_key). */
  clientIdParameter?: string;
  /** Parameters the platform wants on the authorize URL (access_type=offline, duration=permanent...). */
  authorizeParameters?: Readonly<Record<string, string>>;
  /**
   * Query parameters the platform adds to its redirect back that the code exchange must send
   * on (VK ID: `device_id`). Only these reach the token request; a missing one is refused.
   */
  callbackParameters?: readonly string[];
  /** The code exchange sends the authorization's `state` too (VK ID). */
  exchangeWithState?: boolean;
  /**
   * Reads the platform's token answer where it departs from RFC 6749's names or nesting;
   * defaults to `access_token`, `refresh_token` and `expires_in` at the top level. `sent` is
   * the grant the token request carried (never the client's secret), for a platform whose
   * later refreshes need a value its answer does not repeat (VK ID: `device_id`).
   */
  readTokens?: (body: unknown, now: Date, sent: Readonly<Record<string, string>>) => UserTokens | null;
  /** Reads the platform's own words from a token-endpoint refusal that is not RFC 6749's shape. */
  errorMessage?: (body: unknown) => string | undefined;
  /** Whether the platform's access tokens expire and can be refreshed with a refresh token. */
  refreshable: boolean;
}

/** A registered client: the operator's app, or the one SPS registered on a Mastodon instance. */
export interface OAuth2Client {
  clientId: string;
  clientSecret: string | null;
}
