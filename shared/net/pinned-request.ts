import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { ConnectionPolicy } from './connection-policy.ts';
import { FetchFailure } from './fetch-failure.ts';
import { pinnedLookup } from './pinned-lookup.ts';

export interface PinnedRequestInit {
  method: string;
  headers: Record<string, string>;
  /** A stream is piped as it comes, never held whole. */
  body?: string | Readable;
  signal: AbortSignal;
  /** Fails the request when the connection (TLS included) is not up within this. */
  connectTimeoutMs?: number;
}

/** What can be refused before any connection: the scheme, credentials in the URL, a literal address. */
export function checkPinnedTarget(url: URL, policy: ConnectionPolicy): void {
  const allowed = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    throw new FetchFailure('invalid_url', `only https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchFailure('invalid_url', 'the URL must not carry a user name or password');
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal never goes through the lookup, so it is checked here.
  if (isIP(literal) !== 0 && !policy.isAllowedAddress(literal)) {
    throw new FetchFailure('blocked_address', `${literal} is an address that may not be fetched`);
  }
}

/** The FetchFailure behind an error the socket reported (the pinned lookup's refusal), if any. */
function fetchFailureIn(error: unknown): FetchFailure | null {
  if (error instanceof FetchFailure) return error;
  return error instanceof Error && error.cause instanceof FetchFailure ? error.cause : null;
}

/**
 * Sends one request to a host a user gave us, on a fresh connection pinned to an address the
 * policy allows; resolves with the response head, the caller reads the body. No redirects are
 * followed. Refusals by the policy reject with a FetchFailure; network errors are passed as
 * they are, for the caller to classify.
 */
export function pinnedRequest(url: URL, policy: ConnectionPolicy, init: PinnedRequestInit): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    checkPinnedTarget(url, policy);
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: init.method,
      headers: init.headers,
      lookup: pinnedLookup(policy),
      // A fresh connection per request: a pooled socket would skip the pinned lookup.
      agent: false,
      signal: init.signal,
      ...(policy.ca === undefined ? {} : { ca: policy.ca }),
    });
    let connectTimer: NodeJS.Timeout | undefined;
    if (init.connectTimeoutMs !== undefined) {
      const limit = init.connectTimeoutMs;
      connectTimer = setTimeout(() => {
        request.destroy(new FetchFailure('timeout', `could not connect to ${url.host} within ${limit} ms`));
      }, limit);
      request.once('socket', (socket) => {
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => { clearTimeout(connectTimer); });
      });
    }
    request.once('response', (response) => {
      clearTimeout(connectTimer);
      resolve(response);
    });
    request.once('error', (error) => {
      clearTimeout(connectTimer);
      reject(fetchFailureIn(error) ?? error);
    });
    const body = init.body;
    if (body === undefined || typeof body === 'string') {
      request.end(body);
      return;
    }
    // A failing source (storage read) fails the request rather than sending a truncated body.
    body.once('error', (error) => { request.destroy(error); });
    body.pipe(request);
  });
}
