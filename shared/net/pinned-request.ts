import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import type { ConnectionPolicy } from './connection-policy.ts';
import { FetchFailure } from './fetch-failure.ts';
import { pinnedAgents, type PinnedTarget } from './pinned-agents.ts';
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

/** The FetchFailure behind an error the socket or the lookup reported (a policy refusal), if any. */
function fetchFailureIn(error: unknown): FetchFailure | null {
  if (error instanceof FetchFailure) return error;
  return error instanceof Error && error.cause instanceof FetchFailure ? error.cause : null;
}

/**
 * Where the request may go: the URL's literal address (checked by checkPinnedTarget), or its name
 * resolved with every address checked against the policy (pinned-lookup.ts), the first of them.
 */
function checkedTarget(url: URL, policy: ConnectionPolicy): Promise<PinnedTarget> {
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  const port = url.port === '' ? (protocol === 'https:' ? '443' : '80') : url.port;
  const ca = policy.ca === undefined ? {} : { ca: policy.ca };
  const common = { protocol, hostname: url.hostname, port, ...ca } as const;
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0) return Promise.resolve({ ...common, address: literal, family: isIP(literal) });
  return new Promise((resolve, reject) => {
    pinnedLookup(policy)(literal, {}, (error, address, family) => {
      if (error !== null) reject(fetchFailureIn(error) ?? error);
      else if (typeof address === 'string') resolve({ ...common, address, family: family ?? isIP(address) });
      else reject(new FetchFailure('network', `${literal} gave no single address`));
    });
  });
}

/** What stops a request before it is connected: its signal, and the connect deadline if it has one. */
interface ConnectBounds {
  signal: AbortSignal;
  /** When the connection (TLS included) must be up, in Date.now() time; null: no bound. */
  by: number | null;
  failure: () => FetchFailure;
}

/** `work`, unless the signal aborts or the connect deadline passes first. */
function withinConnectBounds<T>(work: Promise<T>, bounds: ConnectBounds): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = (error: Error) => {
      clearTimeout(timer);
      bounds.signal.removeEventListener('abort', onAbort);
      reject(error);
    };
    const onAbort = () => {
      const reason: unknown = bounds.signal.reason;
      stop(reason instanceof Error ? reason : new Error(String(reason)));
    };
    const by = bounds.by;
    const timer = by === null ? undefined : setTimeout(() => { stop(bounds.failure()); }, by - Date.now());
    if (bounds.signal.aborted) {
      onAbort();
      return;
    }
    bounds.signal.addEventListener('abort', onAbort, { once: true });
    work.then((value) => {
      clearTimeout(timer);
      bounds.signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, stop);
  });
}

/**
 * Sends one request to a host a user gave us, pinned to an address the policy allows: the name
 * is resolved and every address checked for this request, then it goes over a kept-alive
 * connection to that very address (pinned-agents.ts), opened now if none is free. Resolves with
 * the response head, the caller reads the body. No redirects are followed. Refusals by the policy
 * reject with a FetchFailure; network errors are passed as they are, for the caller to classify.
 */
export async function pinnedRequest(
  url: URL,
  policy: ConnectionPolicy,
  init: PinnedRequestInit,
): Promise<IncomingMessage> {
  checkPinnedTarget(url, policy);
  const limit = init.connectTimeoutMs;
  const bounds: ConnectBounds = {
    signal: init.signal,
    by: limit === undefined ? null : Date.now() + limit,
    failure: () => new FetchFailure('timeout', `could not connect to ${url.host} within ${limit ?? 0} ms`),
  };
  const target = await withinConnectBounds(checkedTarget(url, policy), bounds);
  return sendPinned(url, target, init, bounds);
}

/** Sends the request over a connection of `target`'s pool: a kept-alive one, or one opened to its address. */
function sendPinned(
  url: URL,
  target: PinnedTarget,
  init: PinnedRequestInit,
  bounds: ConnectBounds,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const { agent, lookup } = pinnedAgents.agentFor(target);
    const request = client.request(url, {
      method: init.method,
      headers: init.headers,
      agent,
      lookup,
      signal: init.signal,
      ...(target.ca === undefined ? {} : { ca: target.ca }),
    });
    let connectTimer: NodeJS.Timeout | undefined;
    if (bounds.by !== null) {
      connectTimer = setTimeout(() => { request.destroy(bounds.failure()); }, bounds.by - Date.now());
      request.once('socket', (socket) => {
        // A kept-alive connection is up already: it says so by no event.
        if (request.reusedSocket) {
          clearTimeout(connectTimer);
          return;
        }
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
