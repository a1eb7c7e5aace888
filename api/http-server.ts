import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorStatus, type ErrorCode } from '../shared/errors.ts';

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Time to receive a whole request, body included; past it the connection is answered 408 and closed. */
  requestTimeoutMs: number;
}

/** Node's headersTimeout default: headers take no longer than this, whatever the body may take. */
const headersTimeoutMs = 60_000;

/** The body of a JSON error answered straight on the socket, in the shape every route answers with. */
function rawErrorAnswer(code: ErrorCode, message: string): string {
  const status = errorStatus[code];
  const body = JSON.stringify({ statusCode: status, error: code, message });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

function clientErrorAnswer(error: NodeJS.ErrnoException, requestTimeoutMs: number): string {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return rawErrorAnswer('request_timeout', `the whole request did not arrive within ${requestTimeoutMs} ms`);
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return rawErrorAnswer('headers_too_large', 'the request headers are too large');
  }
  return rawErrorAnswer('validation_failed', `the request is not valid HTTP (${error.code ?? error.message})`);
}

/**
 * Starts the HTTP server with the request timeout set (Node checks it every `checkEvery` ms, so
 * a short limit is enforced promptly), and answers what Node refuses before any route runs (a
 * request that did not arrive in time, malformed HTTP) with the API's JSON error shape.
 */
export function listenHttpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  options: HttpServerOptions,
): Promise<Server> {
  const checkEvery = Math.min(30_000, Math.max(100, Math.floor(options.requestTimeoutMs / 4)));
  const server = createServer({
    requestTimeout: options.requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(headersTimeoutMs, options.requestTimeoutMs),
    connectionsCheckingInterval: checkEvery,
    // The handler (Koa's) answers every failure itself, so nothing is left to catch here.
  }, (request, response) => { void handler(request, response); });
  // The latest exchange on each connection: an answer written straight on the socket must not
  // land in the middle of one already started, nor follow one given to a request whose body is
  // still arriving (a refused upload being drained).
  const exchanges = new WeakMap<Duplex, { request: IncomingMessage; response: ServerResponse }>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    exchanges.set(request.socket, { request, response });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const last = exchanges.get(socket);
    const answered = last !== undefined && last.response.headersSent
      && !(last.request.complete && last.response.writableFinished);
    if (error.code !== 'ECONNRESET' && socket.writable && !answered) {
      socket.end(clientErrorAnswer(error, options.requestTimeoutMs));
    }
    // Closed once the answer is out; a request still arriving sees its connection close, which is
    // how its handler learns that it is over.
    if (socket instanceof Socket) socket.destroySoon();
    else socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting connections, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeHttpServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => { server.closeAllConnections(); }, timeoutMs);
    force.unref();
    server.close((error) => {
      clearTimeout(force);
      if (error === undefined) resolve();
      else reject(error);
    });
    server.closeIdleConnections();
  });
}
