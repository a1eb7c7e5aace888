import { PlatformError, type PlatformErrorKind } from './platform-error.ts';

export interface PlatformRequest {
  provider: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  timeoutMs: number;
  /** Reads the platform's own error text out of an error body. */
  errorMessage?: (body: unknown) => string | undefined;
  /** Platform-specific classification; return undefined to fall back to the HTTP status. */
  classify?: (status: number, body: unknown) => PlatformErrorKind | undefined;
}

/** Seconds or an HTTP date, per RFC 9110; anything else is ignored. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function kindForStatus(status: number): PlatformErrorKind {
  if (status === 401) return 'disconnected';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retryable';
  return 'permanent';
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Every platform call goes through here, so every adapter gets the same timeouts and the same
 * error classes. Returns the parsed JSON body of a 2xx answer.
 */
export async function platformRequest(request: PlatformRequest): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'SPS/0.1 (Social Publishing Service)', ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers, body, signal: AbortSignal.timeout(request.timeoutMs), redirect: 'error' });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new PlatformError({
      kind: 'retryable',
      provider: request.provider,
      message: timedOut ? `${request.provider} did not answer within ${request.timeoutMs} ms` : `could not reach ${request.provider}: ${describeNetworkError(error)}`,
      cause: error,
    });
  }
  const parsed = await readBody(response);
  if (response.ok) return parsed;

  const kind = request.classify?.(response.status, parsed) ?? kindForStatus(response.status);
  const platformMessage = request.errorMessage?.(parsed) ?? (typeof parsed === 'string' ? parsed.slice(0, 500) : undefined);
  throw new PlatformError({
    kind,
    provider: request.provider,
    httpStatus: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    message: platformMessage ?? `${request.provider} answered HTTP ${response.status}`,
  });
}

function describeNetworkError(error: unknown): string {
  // undici reports "fetch failed" and puts the system error (ECONNREFUSED, ENOTFOUND...) in `cause`.
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
