import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';

/**
 * What the proxy does to the next request for a path:
 * - lose-response: forwards it, waits for the whole answer (the server has acted), then breaks
 *   the client's connection without a byte, as a crash or a network cut after the server's
 *   accept would;
 * - answer: answers itself without forwarding (a 429 with rate-limit headers, a 503...);
 * - pass: forwards it untouched, to let requests before the one to break through.
 */
export type ProxyFault =
  | { kind: 'pass' }
  | { kind: 'lose-response' }
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> };

export interface ProxiedRequest {
  method: string;
  path: string;
  /** The upstream's status; null when the proxy answered itself. */
  upstreamStatus: number | null;
  fault: Exclude<ProxyFault['kind'], 'pass'> | null;
}

export interface FaultProxy {
  /** Origin to give the client instead of the server's. */
  url: string;
  /** Every request that went through, in order. */
  requests: ProxiedRequest[];
  /** Applies `fault` to the next request whose path (without query) is `path`; faults queue up. */
  failNext(path: string, fault: ProxyFault): void;
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function forward(target: URL, incoming: IncomingMessage, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        buffer(answer).then((data) => {
          resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: data });
        }, reject);
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/**
 * A plain-HTTP proxy in front of one server (a platform's real server on loopback) that can
 * break chosen exchanges, for tests of what a client does when an answer is lost or refused.
 */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const faults: { path: string; fault: ProxyFault }[] = [];
  const requests: ProxiedRequest[] = [];

  const server: Server = createServer((incoming, response) => {
    void (async () => {
      const body = await buffer(incoming);
      const path = new URL(incoming.url ?? '/', 'http://proxy').pathname;
      const index = faults.findIndex((entry) => entry.path === path);
      const fault = index === -1 ? null : (faults.splice(index, 1)[0]?.fault ?? null);
      const kind = fault === null || fault.kind === 'pass' ? null : fault.kind;
      const record: ProxiedRequest = { method: incoming.method ?? 'GET', path, upstreamStatus: null, fault: kind };
      requests.push(record);
      if (fault?.kind === 'answer') {
        response.writeHead(fault.status, { 'content-type': 'application/json; charset=utf-8', ...fault.headers });
        response.end(JSON.stringify(fault.body));
        return;
      }
      const answer = await forward(target, incoming, body);
      record.upstreamStatus = answer.status;
      if (fault?.kind === 'lose-response') {
        incoming.socket.destroy();
        return;
      }
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body);
    })().catch((error: unknown) => {
      // The upstream went away: a gateway's answer, so the client sees a failure and not a hang.
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`fault proxy: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    requests,
    failNext(path, fault) {
      faults.push({ path, fault });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
