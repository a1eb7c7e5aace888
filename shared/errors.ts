/**
 * Every expected failure is a DomainError with a stable snake_case code. The api maps codes to
 * HTTP statuses in one place (api/middleware/error-handler.ts); workers map them to job outcomes.
 */
export const errorStatus = {
  validation_failed: 400,
  /** A connect attempt's state (or pick) is unknown, used, expired or another organization's. */
  invalid_state: 400,
  invalid_json: 400,
  unknown_media: 400,
  /** POST /generate-video or /video/function named a video type this server does not make. */
  unknown_video_type: 400,
  missing_credentials: 401,
  invalid_credentials: 401,
  /** The credential is valid but its scopes do not cover the route (the message names the scope needed). */
  insufficient_scope: 403,
  not_found: 404,
  tool_not_found: 404,
  method_not_allowed: 405,
  not_missing: 409,
  conflict: 409,
  /** A request with the same Idempotency-Key is still running. */
  idempotency_request_running: 409,
  /** DELETE /media/:id of a media a scheduled post attaches (the message names the posts). */
  media_in_use: 409,
  /** A reconnect brought back another platform account than the channel's. */
  account_mismatch: 409,
  /** The operator has not given SPS this platform's client id and secret (README, environment). */
  platform_not_configured: 409,
  /** The connection closed before a whole upload arrived (the client left, or the request timed out). */
  upload_interrupted: 400,
  /** The whole request did not arrive within HTTP_REQUEST_TIMEOUT_MS. */
  request_timeout: 408,
  payload_too_large: 413,
  /** Request headers over Node's limit (answered by the HTTP server before any route). */
  headers_too_large: 431,
  unsupported_media_type: 415,
  unsupported_file_type: 415,
  fetch_failed: 422,
  unreadable_media: 422,
  /** The platform refused the credentials or the authorization code; the message is the platform's. */
  connect_refused: 422,
  /** Media would be pulled by a platform from an address it cannot reach (UPLOADS_PUBLIC_URL is private). */
  media_not_public: 422,
  /** A posting schedule named a well-formed time zone the IANA database does not know. */
  unknown_time_zone: 422,
  /** An Idempotency-Key sent again with another method, path or body. */
  idempotency_key_reused: 422,
  /** An AI video type was asked for and the operator has not given SPS an AI provider (AI_API_KEY). */
  provider_not_configured: 422,
  /** The video could not be made from what was asked (an encode that failed or ran out of time). */
  video_generation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  platform_error: 502,
  /** The AI provider refused, failed or did not answer in time while making a video; the message is its own. */
  provider_failed: 502,
  service_unavailable: 503,
  /** The media worker's server has no ffprobe or ffmpeg: nothing is wrong with the user's file. */
  media_inspection_unavailable: 503,
  /** The video worker's server lacks ffmpeg, espeak-ng or the caption font: the operator's to fix. */
  video_generation_unavailable: 503,
  /** Redis (queues, rate limits) cannot be reached. */
  queue_unavailable: 503,
  /** MongoDB cannot be reached. */
  database_unavailable: 503,
  platform_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} was not found`);
