import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustProxyHops } from './trusted-proxy.ts';

interface Seen { ip: string; protocol: string; secure: boolean }

/** A bare Koa app that says which client address and protocol it believes, on a loopback port. */
async function echoServer(hops: number): Promise<{ url: string; server: Server }> {
  const app = new Koa();
  trustProxyHops(app, hops);
  app.use((ctx) => { ctx.body = { ip: ctx.ip, protocol: ctx.protocol, secure: ctx.secure } satisfies Seen; });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => { resolve(listening); });
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('TRUST_PROXY_HOPS: which client address and protocol a Koa app believes', () => {
  const servers = new Map<number, { url: string; server: Server }>();
  beforeAll(async () => {
    for (const hops of [0, 1, 2]) servers.set(hops, await echoServer(hops));
  });
  afterAll(async () => {
    const close = (server: Server) => new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
    await Promise.all([...servers.values()].map(({ server }) => close(server)));
  });

  async function seen(hops: number, headers: Record<string, string>): Promise<Seen> {
    const response = await fetch(servers.get(hops)?.url ?? '', { headers });
    return await response.json() as Seen;
  }

  it('with 0 hops, ignores X-Forwarded-For and -Proto: the socket\'s address, plain http', async () => {
    expect(await seen(0, { 'X-Forwarded-For': '198.51.100.7', 'X-Forwarded-Proto': 'https' }))
      .toEqual({ ip: '127.0.0.1', protocol: 'http', secure: false });
  });

  it('with 1 hop, takes the right-most entry: what the proxy saw, not what the client wrote', async () => {
    expect(await seen(1, { 'X-Forwarded-For': '203.0.113.9, 198.51.100.7' })).toMatchObject({ ip: '198.51.100.7' });
    expect(await seen(1, { 'X-Forwarded-For': '198.51.100.7' })).toMatchObject({ ip: '198.51.100.7' });
    // A proxy that appends X-Forwarded-Proto: the client's forged "https" on the left does not count.
    expect(await seen(1, { 'X-Forwarded-Proto': 'https, http' })).toMatchObject({ protocol: 'http', secure: false });
    expect(await seen(1, { 'X-Forwarded-Proto': 'HTTPS' })).toMatchObject({ protocol: 'https', secure: true });
    // No header from the proxy: the socket's address and plain http.
    expect(await seen(1, {})).toEqual({ ip: '127.0.0.1', protocol: 'http', secure: false });
  });

  it('with 2 hops, takes the second entry from the right', async () => {
    const headers = {
      'X-Forwarded-For': '203.0.113.9, 198.51.100.7, 10.0.0.2', 'X-Forwarded-Proto': 'http, https, http',
    };
    expect(await seen(2, headers))
      .toMatchObject({ ip: '198.51.100.7', protocol: 'https', secure: true });
  });
});
