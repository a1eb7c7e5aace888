import type { IncomingMessage } from 'node:http';
import type { ConnectionPolicy } from './connection-policy.ts';
import { FetchFailure } from './fetch-failure.ts';
import { pinnedRequest } from './pinned-request.ts';

export { FetchFailure, type FetchFailureReason } from './fetch-failure.ts';
export { publicAddressesOnly } from './connection-policy.ts';

export interface SafeFetchOptions extends ConnectionPolicy {
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  /** Refuse before reading a body whose declared length is over this. */
  maxBytes: number;
  userAgent: string;
}

export interface FetchedBody {
  body: IncomingMessage;
  finalUrl: string;
  contentLength: number | null;
}

const tlsErrorCodes = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';
}

function classify(error: unknown, url: URL, options: SafeFetchOptions): FetchFailure {
  if (error instanceof FetchFailure) return error;
  const code = errorCode(error);
  if (error instanceof Error && (error.name === 'AbortError' || code === 'ABORT_ERR')) {
    return new FetchFailure('timeout', `${url.host} did not send the whole file within ${options.totalTimeoutMs} ms`, { cause: error });
  }
  if (tlsErrorCodes.test(code)) return new FetchFailure('tls', `the TLS connection to ${url.host} failed (${code})`, { cause: error });
  return new FetchFailure('network', `could not fetch from ${url.host} (${code || (error instanceof Error ? error.message : String(error))})`, { cause: error });
}

/**
 * GET a user-given URL on the user's behalf without letting it reach inside our network:
 * https only, every address and redirect hop checked, connection pinned to the checked address,
 * connect and total timeouts, bounded redirects, and a declared size over the cap refused early.
 * The caller streams the body and enforces the cap on what actually arrives.
 */
export async function safeFetch(input: string, options: SafeFetchOptions): Promise<FetchedBody> {
  const controller = new AbortController();
  const totalTimer = setTimeout(() => { controller.abort(); }, options.totalTimeoutMs);
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    clearTimeout(totalTimer);
    throw new FetchFailure('invalid_url', `"${input}" is not a valid URL`, { cause: error });
  }
  try {
    for (let hop = 0; ; hop += 1) {
      let response: IncomingMessage;
      try {
        response = await pinnedRequest(url, options, {
          method: 'GET',
          headers: { 'User-Agent': options.userAgent, Accept: 'image/*, video/*;q=0.9, */*;q=0.1' },
          signal: controller.signal,
          connectTimeoutMs: options.connectTimeoutMs,
        });
      } catch (error) {
        throw classify(error, url, options);
      }
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.resume();
        if (hop >= options.maxRedirects) throw new FetchFailure('too_many_redirects', `more than ${options.maxRedirects} redirects`);
        const next = URL.parse(response.headers.location, url.href);
        // A Location that is no URL is the remote server's fault, not ours (it used to be a 500).
        if (next === null) {
          throw new FetchFailure('invalid_url', `${url.host} redirected to an address that is not a valid URL`);
        }
        url = next;
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new FetchFailure('http_status', `${url.host} answered HTTP ${status}`);
      }
      const declared = Number(response.headers['content-length']);
      const contentLength = Number.isFinite(declared) && response.headers['content-length'] !== undefined ? declared : null;
      if (contentLength !== null && contentLength > options.maxBytes) {
        response.destroy();
        throw new FetchFailure('too_large', `the file is ${contentLength} bytes, over the ${options.maxBytes} allowed`);
      }
      // The total timeout keeps running while the caller reads the body.
      response.once('close', () => { clearTimeout(totalTimer); });
      controller.signal.addEventListener('abort', () => {
        response.destroy(new FetchFailure('timeout', `${url.host} did not send the whole file within ${options.totalTimeoutMs} ms`));
      }, { once: true });
      return { body: response, finalUrl: url.toString(), contentLength };
    }
  } catch (error) {
    clearTimeout(totalTimer);
    throw error;
  }
}
