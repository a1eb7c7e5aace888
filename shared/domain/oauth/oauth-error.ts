/** RFC 6749 §5.2 error codes the token endpoint answers with, and RFC 8707's invalid_target. */
export type OAuthErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_target';

const statusOf: Record<OAuthErrorCode, number> = {
  invalid_request: 400, invalid_client: 401, invalid_grant: 400, unsupported_grant_type: 400, invalid_target: 400,
};

/** A code presented after it was redeemed: a sign the code leaked, worth a warning in the logs. */
export interface ReusedCode {
  /** Live tokens issued from the code that this attempt revoked (0 when an earlier reuse did). */
  revokedTokens: number;
}

/** A token endpoint failure, answered as `{error, error_description}`. */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly reusedCode: ReusedCode | null;
  constructor(code: OAuthErrorCode, description: string, options: { reusedCode?: ReusedCode } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.reusedCode = options.reusedCode ?? null;
  }

  get status(): number {
    return statusOf[this.code];
  }
}
