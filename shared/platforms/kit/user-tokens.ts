/** Tokens a platform issued for the user. */
export interface UserTokens {
  accessToken: string;
  /** Null when the platform sent none; on a refresh, the one held stays valid. */
  refreshToken: string | null;
  expiresAt: Date | null;
}
