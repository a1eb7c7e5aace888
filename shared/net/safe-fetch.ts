import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './address-policy.ts';

/** Why a fetch failed: stable codes shown to API users and stored on the media record. */
export type FetchFailureReason = 'invalid_url' | 'blocked_address' | 'timeout' | 'http_status' | 'too_many_redirects' | 'too_large' | 'tls' | 'network' | 'unsupported_type';

export class FetchFailure extends Error {
  readonly reason: FetchFailureReason;
  constructor(reason: FetchFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FetchFailure';
    this.reason = reason;
  }
}

export interface SafeFetchOptions {
  /** Whether an address may be contacted; every resolved address and every redirect hop is checked. */
  isAllowedAddress: (address: string) => boolean;
  /** Plain http is for development and tests only. */
  allowHttp: boolean;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  maxRedirects: number;
  /** Refuse before reading a body whose declared length is over this. */
  maxBytes: number;
  userAgent: string;
  /** Name resolution; replaceable so tests can play DNS (rebinding included). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Extra trusted CA (PEM) for private deployments and tests. */
  ca?: string;
}

export interface FetchedBody {
  body: IncomingMessage;
  finalUrl: string;
  contentLength: number | null;
}

export const publicAddressesOnly = (address: string): boolean => isPublicAddress(address);

const systemResolve = async (hostname: string): Promise<string[]> => (await dnsLookup(hostname, { all: true, order: 'verbatim' })).map((entry) => entry.address);

const tlsErrorCodes = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';
}

/**
 * A lookup for the socket that resolves the name, checks every address, and connects to the
 * address it checked: the check and the connection cannot see different DNS answers.
 */
function pinnedLookup(options: SafeFetchOptions): LookupFunction {
  const resolve = options.resolve ?? systemResolve;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then((addresses) => {
      const blocked = addresses.filter((address) => !options.isAllowedAddress(address));
      if (addresses.length === 0) throw new FetchFailure('network', `${hostname} has no address`);
      if (blocked.length > 0) throw new FetchFailure('blocked_address', `${hostname} resolves to an address that may not be fetched (${blocked.join(', ')})`);
      const chosen = addresses[0] ?? '';
      const family = isIP(chosen);
      if (lookupOptions.all === true) callback(null, [{ address: chosen, family }]);
      else callback(null, chosen, family);
    }).catch((error: unknown) => {
      callback(error instanceof Error ? error : new Error(String(error)), '', 0);
    });
  };
}

function requestOnce(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'GET',
      headers: { 'User-Agent': options.userAgent, Accept: 'image/*, video/*;q=0.9, */*;q=0.1' },
      lookup: pinnedLookup(options),
      // A fresh connection per request: a pooled socket would skip the pinned lookup.
      agent: false,
      signal,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    const connectTimer = setTimeout(() => {
      request.destroy(new FetchFailure('timeout', `could not connect to ${url.host} within ${options.connectTimeoutMs} ms`));
    }, options.connectTimeoutMs);
    request.once('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => { clearTimeout(connectTimer); });
    });
    request.once('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
    request.end();
  });
}

function classify(error: unknown, url: URL, options: SafeFetchOptions): FetchFailure {
  if (error instanceof FetchFailure) return error;
  const code = errorCode(error);
  const cause = error instanceof Error && error.cause instanceof FetchFailure ? error.cause : null;
  if (cause !== null) return cause;
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
      const allowed = options.allowHttp ? ['https:', 'http:'] : ['https:'];
      if (!allowed.includes(url.protocol)) throw new FetchFailure('invalid_url', `only https URLs can be fetched, not ${url.protocol}`);
      if (url.username !== '' || url.password !== '') throw new FetchFailure('invalid_url', 'the URL must not carry a user name or password');
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      // An IP literal never goes through the lookup, so it is checked here.
      if (isIP(literal) !== 0 && !options.isAllowedAddress(literal)) throw new FetchFailure('blocked_address', `${literal} is an address that may not be fetched`);

      let response: IncomingMessage;
      try {
        response = await requestOnce(url, options, controller.signal);
      } catch (error) {
        throw classify(error, url, options);
      }
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.resume();
        if (hop >= options.maxRedirects) throw new FetchFailure('too_many_redirects', `more than ${options.maxRedirects} redirects`);
        url = new URL(response.headers.location, url);
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
