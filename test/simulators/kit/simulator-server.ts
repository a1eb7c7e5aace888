import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldExchange } from './held-exchange.ts';
import type { OperationCheck } from './operation-check.ts';

/** One request as a simulator received it, for tests that check what SPS sent. */
export interface SimulatedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Raw body text; `json()` / `form()` parse it the way the platform would. */
  text: string;
  /** The body's bytes, for uploads that UTF-8 text would mangle. */
  raw: Buffer;
  /** When the whole request had arrived (ms since the epoch), for tests that time retries. */
  receivedAt: number;
}

export interface SimulatedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The platform acted, then the connection broke before its answer left: the socket is destroyed. */
  lose?: boolean;
  /** Deliberately off the platform's description, to test how SPS copes with it: says why, skips the check. */
  offDescription?: string;
}

export interface SimulatorServerOptions {
  /** Largest body kept; a larger one gets `tooLarge` without reaching the handler. 5 MB unless said. */
  maxBodyBytes?: number;
  /** The platform's own answer to a body over the limit. */
  tooLarge?: SimulatedAnswer;
  /** The platform's operations: requests off them are refused, answers off them fail the test. */
  operations?: HeldToOperations;
}

export interface HeldToOperations {
  check: OperationCheck;
  /** The platform's own refusal of a request its description does not allow. */
  refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer;
}

/** A route's handler: answer, or undefined for "no such route" (404 in the platform's own shape). */
export type SimulatorHandler = (request: SimulatedRequest) => SimulatedAnswer | Promise<SimulatedAnswer> | undefined;

export interface RunningSimulator {
  /** Origin such as http://127.0.0.1:41234, to give SPS as the platform's base URL. */
  url: string;
  received: SimulatedRequest[];
  close(): Promise<void>;
}

const defaultMaxBodyBytes = 5 * 1024 * 1024;

export function jsonBody(request: SimulatedRequest): unknown {
  try {
    return JSON.parse(request.text) as unknown;
  } catch {
    return undefined;
  }
}

export function formBody(request: SimulatedRequest): URLSearchParams {
  return new URLSearchParams(request.text);
}

/** The Bearer token of a request, as platforms read the Authorization header. */
export function bearerToken(request: SimulatedRequest): string | null {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  return match?.[1] ?? null;
}

function send(response: ServerResponse, answer: SimulatedAnswer): void {
  // Bytes (audio, images) go out as they are, typed by the answer's own headers.
  if (Buffer.isBuffer(answer.body)) {
    response.writeHead(answer.status, { 'content-type': 'application/octet-stream', ...answer.headers });
    response.end(answer.body);
    return;
  }
  const isText = typeof answer.body === 'string';
  const body = answer.body === undefined ? '' : isText ? answer.body : JSON.stringify(answer.body);
  const type = isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  response.writeHead(answer.status, { 'content-type': type, ...answer.headers });
  response.end(body);
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) for one simulated platform: reads each request whole
 * (text and bytes), records it, and lets `handle` answer, or break the connection after acting.
 * The platform's rules live in its own simulator; this only carries the bytes, so each simulator
 * refuses what its platform refuses and nothing else.
 */
export async function startSimulatorServer(
  handle: SimulatorHandler,
  notFound: SimulatedAnswer,
  options: SimulatorServerOptions = {},
): Promise<RunningSimulator> {
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const tooLarge = options.tooLarge ?? { status: 413, body: { error: 'payload_too_large' } };
  const received: SimulatedRequest[] = [];
  const held = options.operations;
  const answerHeld = async (request: SimulatedRequest): Promise<SimulatedAnswer | undefined> => {
    if (held === undefined) return handle(request);
    const exchange = new HeldExchange(held.check, request);
    const refused = exchange.verdict.operation !== null && exchange.problems.length > 0;
    const answer = refused ? held.refuse(exchange.problems, request) : await handle(request);
    exchange.answered(answer ?? notFound);
    return answer;
  };
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://simulator');
      const raw = Buffer.concat(chunks);
      const request: SimulatedRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        text: raw.toString('utf8'),
        raw,
        receivedAt: Date.now(),
      };
      received.push(request);
      Promise.resolve()
        .then(() => (size > maxBodyBytes ? tooLarge : answerHeld(request)))
        .then((answer) => {
          if (answer?.lose === true) {
            incoming.socket.destroy();
            return;
          }
          send(response, answer ?? notFound);
        })
        .catch((error: unknown) => {
          send(response, { status: 500, body: { error: 'simulator_failure', message: String(error) } });
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}
