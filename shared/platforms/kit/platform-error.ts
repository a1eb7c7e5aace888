/**
 * The one classification of a platform failure the publish worker acts on (ARCHITECTURE rule 3).
 * - retryable: throttled, platform down, network trouble; try again later.
 * - refresh_token: the access token expired; refresh it and try again.
 * - disconnected: the platform no longer accepts the channel's credentials; the user must reconnect.
 * - permanent: the platform rejected what we sent; retrying the same body cannot succeed.
 * - unconfirmed: the platform may have published the part and the adapter cannot find out;
 *   sending it again could post it twice, so the part is set aside for the user to check.
 */
export type PlatformErrorKind = 'retryable' | 'refresh_token' | 'disconnected' | 'permanent' | 'unconfirmed';

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly provider: string;
  readonly httpStatus: number | null;
  readonly retryAfterMs: number | null;
  /** The platform's refusal as it answered (parsed JSON or text), for callers that act on its codes. */
  readonly body: unknown;

  constructor(init: {
    kind: PlatformErrorKind;
    provider: string;
    message: string;
    httpStatus?: number | null;
    retryAfterMs?: number | null;
    body?: unknown;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PlatformError';
    this.kind = init.kind;
    this.provider = init.provider;
    this.httpStatus = init.httpStatus ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.body = init.body;
  }
}
