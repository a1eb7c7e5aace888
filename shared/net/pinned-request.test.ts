import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../test/support/local-https.ts';
import type { ConnectionPolicy } from './connection-policy.ts';
import { FetchFailure } from './fetch-failure.ts';
import { PinnedAgents } from './pinned-agents.ts';
import { pinnedRequest } from './pinned-request.ts';

/** A server that counts the connections it accepts and answers with the address each came in on. */
function countingServer(server: Server): { connections: Socket[]; requests: () => number } {
  const connections: Socket[] = [];
  let requests = 0;
  // An https server tells each TCP connection too, before its handshake.
  server.on('connection', (socket: Socket) => { connections.push(socket); });
  server.on('request', () => { requests += 1; });
  return { connections, requests: () => requests };
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

const get = (url: string, policy: ConnectionPolicy, connectTimeoutMs?: number): Promise<IncomingMessage> =>
  pinnedRequest(new URL(url), policy, {
    method: 'GET', headers: {}, signal: AbortSignal.timeout(5_000),
    ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
  });

async function refusal(url: string, policy: ConnectionPolicy): Promise<FetchFailure> {
  const error: unknown = await get(url, policy).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(FetchFailure);
  return error as FetchFailure;
}

describe('pinned requests over kept-alive connections', () => {
  // Every loopback address: a name can be made to resolve to 127.0.0.1 or 127.0.0.2, one port.
  const server = createHttpServer((request, response) => {
    const answer = () => { response.end(`${request.socket.localAddress ?? ''} ${request.url ?? ''}`); };
    // An answer slower than a connect timeout, which a kept-alive connection must not be held to.
    if (request.url === '/slow') setTimeout(answer, 150);
    else answer();
  });
  const seen = countingServer(server);
  const tls = selfSignedCertificate();
  const httpsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, (_request, response) => {
    response.end('secure');
  });
  const secureSeen = countingServer(httpsServer);
  let port = 0;
  let httpsPort = 0;
  const resolved = { addresses: ['127.0.0.1'] };
  const loopback: ConnectionPolicy = {
    isAllowedAddress: (address) => address.startsWith('127.'),
    allowHttp: true,
    resolve: () => Promise.resolve(resolved.addresses),
  };

  beforeAll(async () => {
    port = await listen(server, '0.0.0.0');
    httpsPort = await listen(httpsServer, '127.0.0.1');
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
    httpsServer.closeAllConnections();
    httpsServer.close();
  });

  it('sends a second request to a host over the connection the first opened', async () => {
    const before = seen.connections.length;
    for (const path of ['/one', '/two']) {
      expect(await text(await get(`http://pool.example.test:${port}${path}`, loopback))).toBe(`127.0.0.1 ${path}`);
    }
    expect(seen.connections.length - before).toBe(1);
  });

  it('reuses a TLS connection too, so a second request pays no handshake', async () => {
    const before = secureSeen.connections.length;
    const policy: ConnectionPolicy = { isAllowedAddress: () => true, allowHttp: false, ca: tls.cert };
    for (let round = 0; round < 2; round += 1) {
      expect(await text(await get(`https://127.0.0.1:${httpsPort}/`, policy))).toBe('secure');
    }
    expect(secureSeen.connections.length - before).toBe(1);
  });

  it('refuses a name now resolving to a refused address, though a connection to its old one is open', async () => {
    resolved.addresses = ['127.0.0.1'];
    await text(await get(`http://rebinding.example.test:${port}/first`, loopback));
    const [connections, requests] = [seen.connections.length, seen.requests()];

    resolved.addresses = ['127.0.0.1', '10.0.0.7'];
    expect((await refusal(`http://rebinding.example.test:${port}/second`, loopback)).reason).toBe('blocked_address');
    // A stricter policy for the same name and address is not served by the open connection either.
    resolved.addresses = ['127.0.0.1'];
    const publicOnly = { ...loopback, isAllowedAddress: () => false };
    expect((await refusal(`http://rebinding.example.test:${port}/third`, publicOnly)).reason).toBe('blocked_address');
    expect([seen.connections.length, seen.requests()]).toEqual([connections, requests]);
  });

  it('connects anew when the name resolves to another allowed address, and to that address', async () => {
    const before = seen.connections.length;
    resolved.addresses = ['127.0.0.1'];
    expect(await text(await get(`http://moving.example.test:${port}/a`, loopback))).toBe('127.0.0.1 /a');
    resolved.addresses = ['127.0.0.2'];
    expect(await text(await get(`http://moving.example.test:${port}/b`, loopback))).toBe('127.0.0.2 /b');
    expect(seen.connections.length - before).toBe(2);
  });

  it('holds only a new connection to the connect timeout, not the answer on a kept-alive one', async () => {
    resolved.addresses = ['127.0.0.1'];
    const url = `http://slow.example.test:${port}/slow`;
    expect(await text(await get(url, loopback, 100))).toBe('127.0.0.1 /slow');
    expect(await text(await get(url, loopback, 100))).toBe('127.0.0.1 /slow');
  });

  it('keeps the pools of at most so many targets, dropping the least recently used idle one', () => {
    const agents = new PinnedAgents({ maxTargets: 2 });
    const target = (hostname: string) =>
      ({ protocol: 'http:', hostname, port: String(port), address: '127.0.0.1', family: 4 }) as const;
    const first = agents.agentFor(target('a.example.test')).agent;
    const second = agents.agentFor(target('b.example.test')).agent;
    expect(agents.agentFor(target('a.example.test')).agent).toBe(first);
    agents.agentFor(target('c.example.test'));
    // b was used least recently: a, used again, stays.
    expect(agents.size).toBe(2);
    expect(agents.agentFor(target('a.example.test')).agent).toBe(first);
    expect(agents.agentFor(target('b.example.test')).agent).not.toBe(second);
    agents.destroy();
  });
});
