/** Why a request to a user-given host failed: stable codes shown to API users and stored on the media record. */
export type FetchFailureReason =
  | 'invalid_url' | 'blocked_address' | 'timeout' | 'http_status' | 'too_many_redirects' | 'too_large'
  | 'tls' | 'network' | 'unsupported_type';

export class FetchFailure extends Error {
  readonly reason: FetchFailureReason;
  constructor(reason: FetchFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchFailure';
    this.reason = reason;
  }
}
