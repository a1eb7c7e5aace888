import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * The Facebook simulator's HTTP front. Unlike the kit's server it keeps each body's bytes (photo
 * and video uploads are checked by their bytes, which a UTF-8 text would mangle), takes bodies
 * as large as a test video, and can break the connection after a route has acted, as a network
 * failure after Graph accepted a post does.
 */
export interface GraphRequest extends SimulatedRequest {
  bytes: Buffer;
}

/** An answer, or `lose`: the route did its work and the client never hears of it. */
export type GraphAnswer = SimulatedAnswer | { lose: true };

export type GraphHandler = (request: GraphRequest) => GraphAnswer | Promise<GraphAnswer> | undefined;

const maxBodyBytes = 64 * 1024 * 1024;

function send(response: ServerResponse, answer: SimulatedAnswer): void {
  const isText = typeof answer.body === 'string';
  const body = answer.body === undefined ? '' : isText ? answer.body : JSON.stringify(answer.body);
  const type = isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  response.writeHead(answer.status, { 'content-type': type, ...answer.headers });
  response.end(body);
}

export async function startGraphServer(handle: GraphHandler, notFound: SimulatedAnswer): Promise<RunningSimulator> {
  const received: GraphRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://simulator');
      const bytes = Buffer.concat(chunks);
      const request: GraphRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        text: bytes.toString('utf8'),
        bytes,
      };
      received.push(request);
      Promise.resolve()
        .then(() => handle(request))
        .then((answer) => {
          if (answer !== undefined && 'lose' in answer) {
            response.socket?.destroy();
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
