/** A failure the user can act on: printed as is on stderr, and the command exits 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The API answered with an error body (`{statusCode, error, message, details?}`). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  /** Seconds to wait before trying again, when the server said so (429). */
  readonly retryAfter: string | null;

  constructor(input: { status: number; code: string; message: string; details?: ErrorDetail[]; retryAfter?: string | null }) {
    super(input.message);
    this.status = input.status;
    this.code = input.code;
    this.details = input.details ?? [];
    this.retryAfter = input.retryAfter ?? null;
  }
}

/** The lines printed on stderr for a failure. */
export function describeFailure(error: unknown): string[] {
  if (error instanceof ApiError) {
    const lines = [`Error: ${error.message} (${error.code}, HTTP ${error.status})`];
    for (const detail of error.details) lines.push(`  - ${detail.path === '' ? '(body)' : detail.path}: ${detail.message}`);
    if (error.retryAfter !== null) lines.push(`Try again in ${error.retryAfter} seconds.`);
    return lines;
  }
  if (error instanceof CliError) return [`Error: ${error.message}`];
  if (error instanceof Error) return [`Error: ${error.message}`];
  return [`Error: ${String(error)}`];
}
