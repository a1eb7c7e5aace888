import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { pinnedRequest } from '../../net/pinned-request.ts';
import type { PublishMedia } from './platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from './platform-error.ts';
import { retryAfterHeaderMs } from './retry-after.ts';

/** A multipart/form-data body whose file part is streamed from storage, never held whole. */
export interface MultipartBody {
  fields: Record<string, string>;
  fileField: string;
  file: PublishMedia;
  /**
   * Files sent after `file`, each as its own part (Telegram's albums name them `attach://<field>`,
   * Discord's are `files[1]`, `files[2]`...); each is opened only when the body reaches it, so one
   * storage read is open at a time.
   */
  moreFiles?: readonly { field: string; file: PublishMedia }[];
}

export interface PlatformRequest {
  provider: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** An application/x-www-form-urlencoded body, as OAuth 2.0 token endpoints take. */
  form?: Record<string, string>;
  multipart?: MultipartBody;
  /**
   * Bytes sent as they are (a file PUT to an upload URL, one chunk of a resumable upload); a
   * stream is sent as it is read, with `length` as Content-Length where the platform needs one.
   */
  bytes?: { data: Buffer | Readable; contentType: string; length?: number };
  timeoutMs: number;
  /** Reads the platform's own error text out of an error body. */
  errorMessage?: (body: unknown) => string | undefined;
  /** Platform-specific classification; return undefined to fall back to the HTTP status. */
  classify?: (status: number, body: unknown) => PlatformErrorKind | undefined;
  /**
   * Integers in the answer beyond Number.MAX_SAFE_INTEGER come back as their digits (a string)
   * instead of a rounded number: TikTok sends its int64 post ids as JSON numbers.
   */
  exactIntegers?: boolean;
  /** Answer `{status, body, headers}` instead of the body, where 200 and 202 mean different things. */
  withStatus?: boolean;
  /** Headers to hand back in `headers` of a `withStatus` answer (an upload session's Location...). */
  readHeaders?: readonly string[];
  /**
   * Statuses outside 2xx that are answers, not refusals (YouTube's 308 "resume incomplete"); they
   * come back like a 2xx, so set `withStatus` to tell them apart.
   */
  answerStatuses?: readonly number[];
  /**
   * Set by the adapter for a server whose address a user gave (a Mastodon instance, a WordPress
   * site, a relay): the name is resolved and checked against this policy for every request, which
   * goes over a kept-alive connection to that very address, so a name that turns private later
   * (DNS rebinding) is refused. Unset for the platforms' own fixed hosts.
   */
  userHost?: ConnectionPolicy;
  /** How messages name the server ("the Mastodon instance"); defaults to the provider. */
  serverName?: string;
  /**
   * How long a refusal asks us to wait, read from its status, headers and body (some platforms
   * name the wait by an error code); defaults to Retry-After.
   */
  retryAfterMs?: (
    status: number,
    header: (name: string) => string | null,
    now: number,
    body: unknown,
  ) => number | null;
}

/** An answer larger than this is not a platform's JSON: refuse it rather than hold it. */
const maxAnswerBytes = 10 * 1024 * 1024;

export function kindForStatus(status: number): PlatformErrorKind {
  if (status === 401) return 'disconnected';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retryable';
  return 'permanent';
}

function retryAfterHeader(_status: number, header: (name: string) => string | null, now: number): number | null {
  return retryAfterHeaderMs(header, now);
}

/** A JSON string, or an integer of 16 digits or more standing on its own (not part of a decimal or exponent). */
const stringOrLongInteger = /"(?:[^"\\]|\\.)*"|(?<![\w.+-])-?\d{16,}(?![\w.])/g;

/** The answer's text with unsafe integers quoted, so JSON.parse keeps their digits. */
function quoteLongIntegers(text: string): string {
  return text.replace(stringOrLongInteger, (token) =>
    token.startsWith('"') || Number.isSafeInteger(Number(token)) ? token : `"${token}"`);
}

function parseBody(text: string, exactIntegers = false): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(exactIntegers ? quoteLongIntegers(text) : text) as unknown;
  } catch {
    // Not JSON (an HTML error page, plain text): callers show its start as the platform's message.
    return text;
  }
}

/** Status, headers and the whole body text of one answer, whichever way it was sent. */
interface RawAnswer {
  status: number;
  header: (name: string) => string | null;
  text: string;
}

async function readCapped(body: AsyncIterable<Uint8Array> | null, provider: string, stop: () => void): Promise<string> {
  if (body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxAnswerBytes) {
      stop();
      const message = `${provider} answered with more than ${maxAnswerBytes} bytes`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headerOf(headers: IncomingHttpHeaders): (name: string) => string | null {
  return (name) => {
    const value = headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

/** What platformRequest hands to either way of sending. */
interface Outgoing {
  headers: Record<string, string>;
  body: string | Readable | undefined;
  signal: AbortSignal;
}

async function sendPinned(
  request: PlatformRequest,
  policy: ConnectionPolicy,
  { headers, body, signal }: Outgoing,
): Promise<RawAnswer> {
  const init = { method: request.method, headers, signal, ...(body === undefined ? {} : { body }) };
  const response = await pinnedRequest(new URL(request.url), policy, init);
  const text = await readCapped(response, request.provider, () => { response.destroy(); });
  return { status: response.statusCode ?? 0, header: headerOf(response.headers), text };
}

async function sendWithFetch(request: PlatformRequest, { headers, body, signal }: Outgoing): Promise<RawAnswer> {
  const webBody = body instanceof Readable ? (Readable.toWeb(body) as ReadableStream) : body;
  const response = await fetch(request.url, {
    method: request.method,
    headers,
    body: webBody,
    signal,
    // A 3xx the caller listed as an answer (YouTube's 308 "resume incomplete") is read, not followed.
    redirect: request.answerStatuses?.some((status) => status >= 300 && status < 400) === true ? 'manual' : 'error',
    ...(webBody instanceof ReadableStream ? { duplex: 'half' } : {}),
  });
  const text = await readCapped(response.body, request.provider, () => { void response.body?.cancel(); });
  return { status: response.status, header: (name) => response.headers.get(name), text };
}

async function multipartStream(body: MultipartBody): Promise<{ stream: Readable; contentType: string; length: number }> {
  const boundary = `----sps${randomBytes(12).toString('hex')}`;
  const quote = (value: string) => value.replace(/["\r\n]/g, '_');
  const files = [{ field: body.fileField, file: body.file }, ...(body.moreFiles ?? [])];
  const disposition = (name: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"`;
  const fields = Object.entries(body.fields).map(([name, value]) => `${disposition(name)}\r\n\r\n${value}\r\n`);
  // A file's bytes end without CRLF: the next file's head, or the tail, starts with it.
  const heads = files.map(({ field, file }, index) => Buffer.from([
    ...(index === 0 ? fields : ['\r\n']),
    `${disposition(field)}; filename="${quote(file.fileName)}"\r\nContent-Type: ${file.mimeType}\r\n\r\n`,
  ].join('')));
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const first = await body.file.open();
  let reading: Readable = first;
  async function* parts(): AsyncGenerator<Buffer> {
    for (const [index, { file }] of files.entries()) {
      yield heads[index] ?? Buffer.alloc(0);
      reading = index === 0 ? first : await file.open();
      for await (const chunk of reading) yield chunk as Buffer;
    }
    yield tail;
  }
  const stream = Readable.from(parts());
  // The first file is open before the first byte is asked for: a request refused before sending
  // must still close it.
  stream.once('close', () => { reading.destroy(); });
  const length = heads.reduce((sum, head) => sum + head.length, 0)
    + files.reduce((sum, { file }) => sum + file.size, 0) + tail.length;
  return { stream, contentType: `multipart/form-data; boundary=${boundary}`, length };
}

/** What an HTTP header value cannot hold (RFC 9110 §5.5): controls, and characters past Latin-1. */
const unsendableInHeader = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A header that cannot be sent holds what a user typed (a token with an emoji, a key with line
 * breaks): the HTTP client refuses it before connecting, which used to be reported as the
 * platform being unreachable (502). It is the user's to fix, so it is a permanent refusal, and
 * the value (a credential) is not repeated.
 */
function refuseUnsendableHeaders(request: PlatformRequest, headers: Record<string, string>): void {
  const name = Object.keys(headers).find((key) => unsendableInHeader.test(headers[key] ?? ''));
  if (name === undefined) return;
  const server = request.serverName ?? request.provider;
  const message = `${server} cannot be sent what was given for the ${name} header: it holds characters `
    + 'that HTTP headers cannot carry (check what was typed)';
  throw new PlatformError({ kind: 'permanent', provider: request.provider, message });
}

/**
 * Every platform call goes through here, so every adapter gets the same timeouts and the same
 * error classes. Returns the parsed JSON body of a 2xx answer.
 */
export async function platformRequest(request: PlatformRequest): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'SPS/0.1 (Social Publishing Service)', ...request.headers };
  refuseUnsendableHeaders(request, headers);
  let body: string | Readable | undefined;
  if (request.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  if (request.form !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  }
  if (request.multipart !== undefined) {
    const multipart = await multipartStream(request.multipart);
    headers['Content-Type'] = multipart.contentType;
    headers['Content-Length'] = String(multipart.length);
    body = multipart.stream;
  }
  if (request.bytes !== undefined) {
    headers['Content-Type'] = request.bytes.contentType;
    const length = Buffer.isBuffer(request.bytes.data) ? request.bytes.data.length : request.bytes.length;
    if (length !== undefined) headers['Content-Length'] = String(length);
    body = Buffer.isBuffer(request.bytes.data) ? Readable.from([request.bytes.data]) : request.bytes.data;
  }
  const signal = AbortSignal.timeout(request.timeoutMs);
  const outgoing = { headers, body, signal };
  let answer: RawAnswer;
  try {
    answer = request.userHost === undefined
      ? await sendWithFetch(request, outgoing)
      : await sendPinned(request, request.userHost, outgoing);
  } catch (error) {
    if (body instanceof Readable) body.destroy();
    throw networkFailure(request, error, signal);
  }
  const parsed = parseBody(answer.text, request.exactIntegers);
  if ((answer.status >= 200 && answer.status < 300) || request.answerStatuses?.includes(answer.status) === true) {
    if (request.withStatus !== true) return parsed;
    const headers = Object.fromEntries((request.readHeaders ?? []).map((name) => [name, answer.header(name)]));
    return { status: answer.status, body: parsed, headers };
  }

  const kind = request.classify?.(answer.status, parsed) ?? kindForStatus(answer.status);
  const platformMessage = request.errorMessage?.(parsed) ?? (typeof parsed === 'string' ? parsed.slice(0, 500) : undefined);
  const readRetryAfter = request.retryAfterMs ?? retryAfterHeader;
  throw new PlatformError({
    kind,
    provider: request.provider,
    httpStatus: answer.status,
    retryAfterMs: readRetryAfter(answer.status, answer.header, Date.now(), parsed),
    body: parsed,
    message: platformMessage ?? `${request.provider} answered HTTP ${answer.status}`,
  });
}

/**
 * A request that got no answer. The message says only that the server could not be reached
 * (or did not answer in time): the system error (ECONNREFUSED, ENOTFOUND...), a refused
 * address and the resolved address stay in `cause`, which the workers log, because whoever
 * named the host could otherwise map which hosts and ports exist by reading the messages.
 */
function networkFailure(request: PlatformRequest, error: unknown, signal: AbortSignal): PlatformError {
  if (error instanceof PlatformError) return error;
  const server = request.serverName ?? request.provider;
  const provider = request.provider;
  if (error instanceof FetchFailure && error.reason === 'invalid_url') {
    const message = `${server} cannot be called at this address: ${error.message}`;
    return new PlatformError({ kind: 'permanent', provider, message, cause: error });
  }
  if (signal.aborted) {
    const message = `${server} did not answer within ${request.timeoutMs} ms`;
    return new PlatformError({ kind: 'retryable', provider, message, cause: error });
  }
  return new PlatformError({ kind: 'retryable', provider, message: `could not reach ${server}`, cause: error });
}
