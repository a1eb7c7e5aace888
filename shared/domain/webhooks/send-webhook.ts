import type { IncomingMessage } from 'node:http';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { pinnedRequest } from '../../net/pinned-request.ts';

/** What the delivery log keeps of an answer; the rest of it is read no further. */
export const responseExcerptLength = 500;
/** Bytes read for the excerpt: 500 characters of UTF-8 take at most 2,000. */
const excerptBytes = responseExcerptLength * 4;

export interface SendOutcome {
  /** The receiver's HTTP status; null when no answer came. */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed, as the organization's log shows it; null on a 2xx. */
  error: string | null;
  responseExcerpt: string | null;
  /** The underlying failure, for the workers' log only. */
  cause: unknown;
}

/** Reads the start of an answer and drops the connection: a receiver cannot make SPS read megabytes. */
function readExcerpt(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      response.destroy();
      resolve(Buffer.concat(chunks).toString('utf8').slice(0, responseExcerptLength));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= excerptBytes) finish();
    });
    response.once('end', finish);
    // A connection cut mid-answer (the timeout included) still leaves what arrived as the excerpt.
    response.once('error', finish);
    response.once('close', finish);
  });
}

/**
 * The organization's log says only that the endpoint could not be reached, whatever the cause
 * (refused, unresolvable, or an address the policy refuses): naming the cause would tell a
 * caller which internal names resolve to private addresses. The cause goes to the workers' log.
 */
function failureMessage(error: unknown, url: URL, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer from ${url.host} within ${timeoutMs} ms`;
  if (error instanceof FetchFailure && error.reason === 'invalid_url') return error.message;
  return `could not connect to ${url.host}`;
}

/**
 * POSTs one delivery through a pinned connection (every address checked against the policy,
 * the connection made to the address checked), never following redirects, within `timeoutMs`
 * from the first byte sent to the end of the excerpt.
 */
export async function sendWebhook(
  request: { url: string; body: string; headers: Record<string, string> },
  options: { policy: ConnectionPolicy; timeoutMs: number },
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = URL.parse(request.url);
  if (url === null) {
    const message = 'the endpoint URL is not a valid URL';
    return { statusCode: null, durationMs: 0, error: message, responseExcerpt: null, cause: null };
  }
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  try {
    let response: IncomingMessage;
    try {
      response = await pinnedRequest(url, options.policy, {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        body: request.body,
        signal: controller.signal,
        connectTimeoutMs: options.timeoutMs,
      });
    } catch (error) {
      return {
        statusCode: null, durationMs: elapsed(), responseExcerpt: null, cause: error,
        error: failureMessage(error, url, options.timeoutMs, timedOut),
      };
    }
    const statusCode = response.statusCode ?? 0;
    const excerpt = await readExcerpt(response);
    const ok = statusCode >= 200 && statusCode < 300;
    return {
      statusCode,
      durationMs: elapsed(),
      responseExcerpt: excerpt === '' ? null : excerpt,
      // Redirects are not followed: a receiver that moved must be registered at its new URL.
      error: ok ? null : `${url.host} answered HTTP ${statusCode}`,
      cause: null,
    };
  } finally {
    clearTimeout(timer);
  }
}
