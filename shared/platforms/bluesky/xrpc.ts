import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { pinnedRequest } from '../../net/pinned-request.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { kindForStatus, platformRequest } from '../kit/platform-http.ts';
import { retryAfterHeaderMs } from '../kit/retry-after.ts';

export const provider = 'bluesky';

/**
 * Where a channel's XRPC calls go: the user's own PDS when they named one (a user-given host,
 * reached under the connection policy), else the configured entryway (bsky.social).
 */
export interface XrpcServer {
  origin: string;
  userHost: ConnectionPolicy | undefined;
}

/** XRPC errors are `{error: <Name>, message}`; the message is what a person can act on. */
const errorBody = z.object({ error: z.string(), message: z.string().optional() });

export function xrpcErrorName(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  return parsed.success ? parsed.data.error : undefined;
}

export function xrpcErrorMessage(body: unknown): string | undefined {
  const parsed = errorBody.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, message } = parsed.data;
  if (error === 'AuthFactorTokenRequired') {
    return 'Bluesky: this account signs in with an email code; use an app password (Settings > App passwords)';
  }
  return `Bluesky: ${message ?? error}`;
}

/**
 * Publishing calls, by the PDS's error names (open-and-community.md 1.5): an expired access JWT
 * (HTTP 400, not 401) is renewed with the refresh JWT; a token the PDS cannot verify, a refused
 * login and a taken-down or deactivated account (or repository) need the user; a throttled call
 * waits.
 */
export function classifyXrpc(status: number, body: unknown): PlatformErrorKind | undefined {
  switch (xrpcErrorName(body)) {
    case 'ExpiredToken':
      return 'refresh_token';
    case 'InvalidToken':
    case 'AuthenticationRequired':
    case 'AccountTakedown':
    case 'AccountDeactivated':
    case 'RepoTakendown':
    case 'RepoDeactivated':
    case 'RepoSuspended':
      // The Repo* names refuse the channel's own repository as a whole: the account is down, not the post.
      return 'disconnected';
    case 'RateLimitExceeded':
      return 'retryable';
    default:
      return status === 429 ? 'retryable' : undefined;
  }
}

/** `RateLimit-Reset` is the epoch second the window reopens; Retry-After when a proxy sent that instead. */
export function xrpcRetryAfterMs(
  _status: number,
  header: (name: string) => string | null,
  now: number,
): number | null {
  const reset = header('ratelimit-reset')?.trim() ?? '';
  if (/^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return retryAfterHeaderMs(header, now);
}

export interface XrpcCall {
  method: 'GET' | 'POST';
  nsid: string;
  query?: Record<string, string>;
  json?: unknown;
  /** Bearer token (the access JWT, or the refresh JWT for refreshSession). */
  token?: string;
  timeoutMs: number;
  /** How this caller classifies refusals; publishing's by default. */
  classify?: (status: number, body: unknown) => PlatformErrorKind | undefined;
}

function xrpcUrl(server: XrpcServer, nsid: string, query: Record<string, string> | undefined): string {
  const search = query === undefined ? '' : `?${new URLSearchParams(query).toString()}`;
  return `${server.origin}/xrpc/${nsid}${search}`;
}

/** A server the user named is named with its address, as SPS called it (with the https:// it added to a bare host). */
function serverName(server: XrpcServer): string {
  return server.userHost === undefined ? 'Bluesky' : `the Bluesky server at ${server.origin}`;
}

/** The XRPC error name (RecordNotFound...) of a refusal by the PDS, for callers that act on one. */
export function refusalName(error: unknown): string | undefined {
  return error instanceof PlatformError && error.httpStatus !== null ? xrpcErrorName(error.body) : undefined;
}

/** One XRPC query or procedure with a JSON body (or none); answers the parsed JSON body. */
export function xrpc(server: XrpcServer, call: XrpcCall): Promise<unknown> {
  return platformRequest({
    provider,
    serverName: serverName(server),
    method: call.method,
    url: xrpcUrl(server, call.nsid, call.query),
    ...(call.json === undefined ? {} : { json: call.json }),
    ...(call.token === undefined ? {} : { headers: { Authorization: `Bearer ${call.token}` } }),
    timeoutMs: call.timeoutMs,
    errorMessage: xrpcErrorMessage,
    classify: call.classify ?? classifyXrpc,
    retryAfterMs: xrpcRetryAfterMs,
    ...(server.userHost === undefined ? {} : { userHost: server.userHost }),
  });
}

/** An upload's bytes: a buffer already read, or a stream of known length. */
export interface RawBody {
  data: Buffer | Readable;
  contentType: string;
  length: number;
}

interface RawAnswer {
  status: number;
  header: (name: string) => string | null;
  text: string;
}

const maxAnswerBytes = 1024 * 1024;

async function readAnswer(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxAnswerBytes) throw new Error(`the answer is over ${maxAnswerBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function sendRaw(
  url: string,
  server: XrpcServer,
  headers: Record<string, string>,
  body: RawBody,
  signal: AbortSignal,
): Promise<RawAnswer> {
  if (server.userHost !== undefined) {
    const response: IncomingMessage = await pinnedRequest(new URL(url), server.userHost, {
      method: 'POST',
      headers,
      body: Buffer.isBuffer(body.data) ? Readable.from([body.data]) : body.data,
      signal,
    });
    const text = await readAnswer(response);
    return {
      status: response.statusCode ?? 0,
      header: (name) => {
        const value = response.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      },
      text,
    };
  }
  const data = body.data;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: Buffer.isBuffer(data) ? data : (Readable.toWeb(data) as ReadableStream),
    signal,
    redirect: 'error',
    duplex: 'half',
  });
  const text = response.body === null ? '' : await readAnswer(response.body);
  return { status: response.status, header: (name) => response.headers.get(name), text };
}

/**
 * A procedure whose body is raw bytes (uploadBlob): the kit's platformRequest sends JSON, forms
 * and multipart only. Failures are classified and worded exactly as `xrpc` does.
 */
export async function xrpcUpload(
  server: XrpcServer,
  call: Omit<XrpcCall, 'method' | 'json' | 'query'> & {
    body: RawBody;
  },
): Promise<unknown> {
  const url = xrpcUrl(server, call.nsid, undefined);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': 'SPS/0.1 (Social Publishing Service)',
    'Content-Type': call.body.contentType,
    'Content-Length': String(call.body.length),
    ...(call.token === undefined ? {} : { Authorization: `Bearer ${call.token}` }),
  };
  const signal = AbortSignal.timeout(call.timeoutMs);
  let answer: RawAnswer;
  try {
    answer = await sendRaw(url, server, headers, call.body, signal);
  } catch (error) {
    if (!Buffer.isBuffer(call.body.data)) call.body.data.destroy();
    const message = signal.aborted
      ? `${serverName(server)} did not answer within ${call.timeoutMs} ms`
      : `could not reach ${serverName(server)}`;
    throw new PlatformError({ kind: 'retryable', provider, message, cause: error });
  }
  let parsed: unknown = answer.text;
  try {
    parsed = answer.text === '' ? null : (JSON.parse(answer.text) as unknown);
  } catch {
    // Not JSON (a proxy's error page): its start is shown as the message below.
  }
  if (answer.status >= 200 && answer.status < 300) return parsed;
  const classify = call.classify ?? classifyXrpc;
  const fallback = typeof parsed === 'string' ? parsed.slice(0, 500) : `Bluesky answered HTTP ${answer.status}`;
  const failure = new PlatformError({
    kind: classify(answer.status, parsed) ?? kindForStatus(answer.status),
    provider,
    httpStatus: answer.status,
    retryAfterMs: xrpcRetryAfterMs(answer.status, answer.header, Date.now()),
    message: xrpcErrorMessage(parsed) ?? fallback,
    body: parsed,
  });
  throw failure;
}
