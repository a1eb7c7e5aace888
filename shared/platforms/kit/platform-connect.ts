import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import type { OAuth2Client, OAuth2Provider } from './oauth2-provider.ts';
import type { UserTokens } from './user-tokens.ts';

/**
 * One platform's app registration as the operator configured it (docs/configuration.md, Platforms):
 * `<PLATFORM>_CLIENT_ID`, `<PLATFORM>_CLIENT_SECRET`, and base URLs that tests point at simulators.
 */
export interface PlatformApp {
  clientId: string | null;
  clientSecret: string | null;
  /** The operator's bot token, for platforms where a bot acts for the app (Discord). */
  botToken: string | null;
  /** Where the platform's API answers (profile reads, publishing). */
  apiUrl: string;
  /** Where the platform's authorize page is, when it is not on apiUrl. */
  authUrl: string;
  /** Where the platform's token endpoint is, when it is on neither (defaults to apiUrl). */
  tokenUrl: string;
}

/** What a connect step may use to talk to the platform. */
export interface ConnectContext {
  app: PlatformApp;
  timeoutMs: number;
  /** For servers whose address the user typed (Mastodon, Lemmy, WordPress, Listmonk): pinned like upload-from-url. */
  userHosts: ConnectionPolicy;
  /** The clock token lifetimes are counted from (the token lifecycle's own); the real one by default. */
  now?: () => Date;
}

export type { UserTokens } from './user-tokens.ts';

/** One account, page, board or channel the platform let us act for, with the tokens to do it. */
export interface VerifiedAccount {
  /** The platform's own id; reconnecting matches on it, so it must not change for the same account. */
  accountId: string;
  name: string;
  username: string | null;
  picture: string | null;
  instanceUrl: string | null;
  /** What the adapter sends as the credential: a bearer token, or the platform's own encoding of it. */
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  /** The account's own text limit where accounts of the platform differ (a Mastodon instance's). */
  textLimit?: number | null;
}

export interface CredentialField {
  key: string;
  label: string;
  /** `secret` fields are never echoed back into a form or a log. */
  kind: 'text' | 'secret' | 'url' | 'textarea';
  help: string;
  optional?: boolean;
}

/** Platforms connected with what the user types: checked against the platform before anything is saved. */
export interface CredentialsConnect {
  kind: 'credentials';
  fields: readonly CredentialField[];
  /**
   * Signs in with the values and reads the profile. The platform's refusal is a PlatformError
   * (`permanent` or `disconnected`) carrying the platform's own message, shown to the user.
   */
  verify(values: Readonly<Record<string, string>>, context: ConnectContext): Promise<VerifiedAccount>;
  /** Platforms whose sign-in gives a refreshable session (Bluesky) renew it here. */
  refresh?: (refreshToken: string, instanceUrl: string | null, context: ConnectContext) => Promise<UserTokens>;
}

/** The accounts an authorization lets SPS act for. */
export interface AuthorizedAccounts {
  /**
   * True where the user chooses among targets (Facebook pages, boards, channels, locations):
   * the dashboard shows a picker and only the picked one becomes a channel.
   */
  pick: boolean;
  accounts: VerifiedAccount[];
}

/** Platforms connected with the OAuth 2.0 authorization-code flow (PKCE where supported). */
export interface OAuthConnect {
  kind: 'oauth2';
  /** The platform's endpoints and habits, from the operator's app settings (or the instance's). */
  provider(app: PlatformApp): OAuth2Provider;
  /**
   * Reads the profile (and the targets to pick from) with the tokens just issued. A platform
   * that trades them for other tokens (Facebook page tokens, Instagram long-lived tokens) does
   * it here and returns those.
   */
  accounts(tokens: UserTokens, context: ConnectContext): Promise<AuthorizedAccounts>;
  /**
   * Federated platforms (Mastodon) register SPS as a client on the user's server first; the
   * api keeps the registration per server and redirect URI, so this runs once per server.
   */
  /**
   * Platforms that renew tokens their own way (Instagram's `ig_refresh_token`, where the access
   * token is its own refresh token) do it here instead of the RFC 6749 refresh grant. A refusal
   * of the token is PlatformError `disconnected`; trouble reaching the platform `retryable`.
   */
  refresh?: (refreshToken: string, context: ConnectContext) => Promise<UserTokens>;
  registerClient?: (serverUrl: string, redirectUri: string, context: ConnectContext) => Promise<OAuth2Client>;
}

export type PlatformConnect = CredentialsConnect | OAuthConnect;
