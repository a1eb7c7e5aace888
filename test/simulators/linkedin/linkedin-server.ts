import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/** A request with its body's bytes: uploads are binary and must reach the simulator whole. */
export interface RawRequest extends SimulatedRequest {
  raw: Buffer;
  /** When the whole request had arrived (ms since the epoch), for tests that time retries. */
  receivedAt: number;
}

/** An answer, or `lose`: LinkedIn did the work and the connection broke before its answer left. */
export type LinkedinAnswer = SimulatedAnswer & { lose?: boolean };

export type LinkedinHandler = (request: RawRequest) => LinkedinAnswer | Promise<LinkedinAnswer> | undefined;

/** More than any request SPS makes in tests (video parts are made small there). */
const maxBodyBytes = 16 * 1024 * 1024;

/**
 * The LinkedIn simulator's HTTP side: like the kit's simulator server, but it keeps bodies as
 * bytes (image and video uploads) and can destroy the socket after the work is done, so a test
 * can lose an answer LinkedIn has acted on.
 */
export interface LinkedinServer extends RunningSimulator {
  received: RawRequest[];
}

export async function startLinkedinServer(handle: LinkedinHandler, notFound: SimulatedAnswer): Promise<LinkedinServer> {
  const received: RawRequest[] = [];
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
      const request: RawRequest = {
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
        .then(() => {
          if (size > maxBodyBytes) return { status: 413, body: { status: 413, message: 'Request entity too large' } };
          return handle(request) ?? notFound;
        })
        .then((answer: LinkedinAnswer) => {
          if (answer.lose === true) {
            incoming.socket.destroy();
            return;
          }
          const text = typeof answer.body === 'string' ? answer.body : null;
          const isText = text !== null;
          const body = answer.body === undefined ? '' : text ?? JSON.stringify(answer.body);
          const type = isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
          response.writeHead(answer.status, { 'content-type': type, ...answer.headers });
          response.end(body);
        })
        .catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ status: 500, message: `simulator failure: ${String(error)}` }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    }),
  };
}
