import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../test/support/local-https.ts';
import { FetchFailure, publicAddressesOnly, safeFetch, type SafeFetchOptions } from './safe-fetch.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

async function listen(server: Server | TcpServer, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

describe('safeFetch', () => {
  const routes = new Map<string, Handler>();
  const seenHosts: string[] = [];
  const server = createHttpServer((request, response) => {
    seenHosts.push(request.headers.host ?? '');
    const handler = routes.get(request.url ?? '');
    if (handler === undefined) { response.writeHead(404).end('nope'); return; }
    handler(request, response);
  });
  const tls = selfSignedCertificate();
  const httpsServer = createHttpsServer({ key: tls.key, cert: tls.cert }, (_request, response) => { response.end('secure hello'); });
  // Accepts TCP but never speaks TLS: the handshake never completes.
  const silent = createTcpServer(() => undefined);
  let port = 0;
  let httpsPort = 0;
  let silentPort = 0;
  let origin = '';

  const loopbackOnly = (address: string) => address === '127.0.0.1';
  const options = (overrides: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
    isAllowedAddress: loopbackOnly, allowHttp: true, connectTimeoutMs: 1_000, totalTimeoutMs: 3_000, maxRedirects: 5, maxBytes: 1_000_000,
    userAgent: 'SPS-test', ...overrides,
  });
  async function failure(url: string, overrides: Partial<SafeFetchOptions> = {}): Promise<FetchFailure> {
    const error: unknown = await safeFetch(url, options(overrides)).then(async (fetched) => text(fetched.body)).then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(FetchFailure);
    return error as FetchFailure;
  }

  beforeAll(async () => {
    port = await listen(server);
    httpsPort = await listen(httpsServer);
    silentPort = await listen(silent);
    origin = `http://127.0.0.1:${port}`;
    routes.set('/file', (request, response) => { response.end(`hello ${request.headers['user-agent'] ?? ''}`); });
    routes.set('/big', (_request, response) => { response.writeHead(200, { 'Content-Length': '5000000' }).end(); });
    routes.set('/hang', () => undefined);
    routes.set('/to-private', (_request, response) => { response.writeHead(302, { Location: `http://127.0.0.2:${port}/file` }).end(); });
    for (let hop = 0; hop < 7; hop += 1) routes.set(`/hop${hop}`, (_request, response) => { response.writeHead(301, { Location: `/hop${hop + 1}` }).end(); });
    routes.set('/hop7', (_request, response) => { response.end('arrived'); });
    routes.set('/hop2-end', (_request, response) => { response.writeHead(302, { Location: '/file' }).end(); });
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
    httpsServer.close();
    silent.close();
  });

  it('fetches an allowed URL with its user agent', async () => {
    const fetched = await safeFetch(`${origin}/file`, options());
    expect(await text(fetched.body)).toBe('hello SPS-test');
  });

  it('connects to the address it checked (pinned), whatever the name', async () => {
    const fetched = await safeFetch(`http://media.example.test:${port}/file`, options({ resolve: () => Promise.resolve(['127.0.0.1']) }));
    expect(await text(fetched.body)).toMatch(/^hello/);
    expect(seenHosts.at(-1)).toBe(`media.example.test:${port}`);
  });

  it('refuses a name with any blocked address, as DNS rebinding would give', async () => {
    const error = await failure(`http://rebind.example.test:${port}/file`, { resolve: () => Promise.resolve(['127.0.0.1', '10.0.0.7']) });
    expect(error.reason).toBe('blocked_address');
    // The addresses are for the logs (the cause), never the message a user reads.
    expect(error.message).toBe('rebind.example.test resolves to a private network address');
    const detail = 'rebind.example.test resolved to 127.0.0.1, 10.0.0.7; refused 10.0.0.7';
    expect(error.cause).toMatchObject({ message: detail });
  });

  it('holds the public-address check when private networks are not allowed', async () => {
    const strict = { isAllowedAddress: publicAddressesOnly, allowHttp: false };
    expect((await failure(`https://localhost:${httpsPort}/`, strict)).reason).toBe('blocked_address');
    expect((await failure(`https://127.0.0.1:${httpsPort}/`, strict)).reason).toBe('blocked_address');
    expect((await failure(`https://[::ffff:127.0.0.1]:${httpsPort}/`, strict)).reason).toBe('blocked_address');
    expect((await failure('https://169.254.169.254/latest/meta-data/', strict)).reason).toBe('blocked_address');
    expect((await failure(`https://inside.example.test:${httpsPort}/`, { ...strict, resolve: () => Promise.resolve(['192.168.1.10']) })).reason).toBe('blocked_address');
  });

  it('requires https unless plain http is allowed, and refuses credentials in the URL', async () => {
    expect((await failure(`${origin}/file`, { allowHttp: false })).reason).toBe('invalid_url');
    expect((await failure(`http://user:secret@127.0.0.1:${port}/file`)).reason).toBe('invalid_url');
    expect((await failure('ftp://127.0.0.1/file')).reason).toBe('invalid_url');
    expect((await failure('not a url')).reason).toBe('invalid_url');
  });

  it('checks every redirect hop', async () => {
    const error = await failure(`${origin}/to-private`);
    expect(error.reason).toBe('blocked_address');
    expect(error.message).toMatch(/127\.0\.0\.2/);
  });

  it('follows at most the configured number of redirects', async () => {
    expect(await text((await safeFetch(`${origin}/hop2`, options())).body)).toBe('arrived');
    expect((await failure(`${origin}/hop0`, { maxRedirects: 5 })).reason).toBe('too_many_redirects');
  });

  it('reports a non-2xx answer, a declared size over the cap, and a total timeout', async () => {
    const missing = await failure(`${origin}/nothing-here`);
    expect(missing).toMatchObject({ reason: 'http_status', message: expect.stringMatching(/HTTP 404/) as string });
    expect((await failure(`${origin}/big`, { maxBytes: 1000 })).reason).toBe('too_large');
    const started = Date.now();
    expect((await failure(`${origin}/hang`, { totalTimeoutMs: 300 })).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('times out a connection whose TLS handshake never completes', async () => {
    const error = await failure(`https://127.0.0.1:${silentPort}/`, { connectTimeoutMs: 300 });
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/could not connect/);
  });

  it('reports TLS failures, and trusts a CA it is given', async () => {
    expect((await failure(`https://127.0.0.1:${httpsPort}/`)).reason).toBe('tls');
    const fetched = await safeFetch(`https://127.0.0.1:${httpsPort}/`, options({ ca: tls.cert }));
    expect(await text(fetched.body)).toBe('secure hello');
  });
});
