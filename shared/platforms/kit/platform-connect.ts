import type { ConnectionPolicy } from '../../net/connection-policy.ts';

/**
 * One platform's app registration as the operator configured it (README, environment table):
 * `<PLATFORM>_CLIENT_ID`, `<PLATFORM>_CLIENT_SECRET`, and base URLs that tests point at simulators.
 */
export interface PlatformApp {
  clientId: string | null;
  clientSecret: string | null;
  /** Where the platform's API answers (profile reads, publishing). */
  apiUrl: string;
  /** Where the platform's authorize and token endpoints are, when they are not on apiUrl. */
  authUrl: string;
}

/** What a connect step may use to talk to the platform. */
export interface ConnectContext {
  app: PlatformApp;
  timeoutMs: number;
  /** For servers whose address the user typed (Mastodon, Lemmy, WordPress, Listmonk): pinned like upload-from-url. */
  userHosts: ConnectionPolicy;
}

/** Tokens a platform issued for the user. */
export interface UserTokens {
  accessToken: string;
  /** Null when the platform sent none; on a refresh, the one held stays valid. */
  refreshToken: string | null;
  expiresAt: Date | null;
}

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
  refresh?(refreshToken: string, instanceUrl: string | null, context: ConnectContext): Promise<UserTokens>;
}

export type PlatformConnect = CredentialsConnect;
