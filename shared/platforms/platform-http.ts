import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { PublishMedia } from './platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from './platform-error.ts';

/** A multipart/form-data body whose file part is streamed from storage, never held whole. */
export interface MultipartBody {
  fields: Record<string, string>;
  fileField: string;
  file: PublishMedia;
}

export interface PlatformRequest {
  provider: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  multipart?: MultipartBody;
  timeoutMs: number;
  /** Reads the platform's own error text out of an error body. */
  errorMessage?: (body: unknown) => string | undefined;
  /** Platform-specific classification; return undefined to fall back to the HTTP status. */
  classify?: (status: number, body: unknown) => PlatformErrorKind | undefined;
  /** Answer `{status, body}` instead of the body, where 200 and 202 mean different things. */
  withStatus?: boolean;
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

async function multipartStream(body: MultipartBody): Promise<{ stream: Readable; contentType: string; length: number }> {
  const boundary = `----sps${randomBytes(12).toString('hex')}`;
  const quote = (value: string) => value.replace(/["\r\n]/g, '_');
  const head = Buffer.from([
    ...Object.entries(body.fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`),
    `--${boundary}\r\nContent-Disposition: form-data; name="${quote(body.fileField)}"; filename="${quote(body.file.fileName)}"\r\nContent-Type: ${body.file.mimeType}\r\n\r\n`,
  ].join(''));
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const file = await body.file.open();
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of file) yield chunk as Buffer;
    yield tail;
  }
  return { stream: Readable.from(parts()), contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + body.file.size + tail.length };
}

/**
 * Every platform call goes through here, so every adapter gets the same timeouts and the same
 * error classes. Returns the parsed JSON body of a 2xx answer.
 */
export async function platformRequest(request: PlatformRequest): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'SPS/0.1 (Social Publishing Service)', ...request.headers };
  let body: string | ReadableStream | undefined;
  if (request.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  if (request.multipart !== undefined) {
    const multipart = await multipartStream(request.multipart);
    headers['Content-Type'] = multipart.contentType;
    headers['Content-Length'] = String(multipart.length);
    body = Readable.toWeb(multipart.stream) as ReadableStream;
  }
  let response: Response;
  try {
    response = await fetch(request.url, { method: request.method, headers, body, signal: AbortSignal.timeout(request.timeoutMs), redirect: 'error', ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) });
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
  if (response.ok) return request.withStatus === true ? { status: response.status, body: parsed } : parsed;

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
