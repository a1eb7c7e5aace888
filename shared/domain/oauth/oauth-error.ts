/** RFC 6749 §5.2 error codes the token endpoint answers with. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';

const statusOf: Record<OAuthErrorCode, number> = { invalid_request: 400, invalid_client: 401, invalid_grant: 400, unsupported_grant_type: 400 };

/** A token endpoint failure, answered as `{error, error_description}`. */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
  }

  get status(): number {
    return statusOf[this.code];
  }
}
