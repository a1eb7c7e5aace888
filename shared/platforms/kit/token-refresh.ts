export interface RefreshedTokens {
  accessToken: string;
  /** Null when the platform did not send a new one: the one held stays valid. */
  refreshToken: string | null;
  expiresAt: Date | null;
}

export interface RefreshRequest {
  provider: string;
  refreshToken: string;
  instanceUrl: string | null;
  /** When the refresh is made, by the lifecycle's clock: the new expiry is counted from it. */
  now: Date;
}

/**
 * One platform's refresh call. Throws PlatformError `disconnected` when the platform refuses
 * the refresh token (`invalid_grant` or its equivalent), `retryable` when it could not answer.
 */
export type RefreshTokens = (request: RefreshRequest) => Promise<RefreshedTokens>;
