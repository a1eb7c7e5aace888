import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHttpServer, listenHttpServer } from './http-server.ts';

/** Sends raw bytes and collects everything the server sends until it closes the connection. */
function exchange(port: number, bytes: string): Promise<{ head: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => { socket.write(bytes); });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      resolve({ head, body: body === '' ? null : JSON.parse(body) as unknown });
    });
  });
}

describe('the HTTP server', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // Answers once the whole body is in, as a route that reads it does.
    server = await listenHttpServer((request, response) => {
      request.resume();
      request.once('end', () => { response.end('{}'); });
      return Promise.resolve();
    }, { host: '127.0.0.1', port: 0, requestTimeoutMs: 1000 });
    ({ port } = server.address() as AddressInfo);
  });
  afterAll(async () => { await closeHttpServer(server, 1000); });

  it('answers a request that does not arrive within the request timeout with 408, in JSON', async () => {
    const answer = await exchange(port, 'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart of it');
    expect(answer.head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer.body).toEqual({
      statusCode: 408, error: 'request_timeout', message: 'the whole request did not arrive within 1000 ms',
    });
  });

  it('answers malformed HTTP with 400 and oversized headers with 431, in JSON', async () => {
    const malformed = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(malformed.body).toMatchObject({
      statusCode: 400, error: 'validation_failed',
      message: expect.stringMatching(/^the request is not valid HTTP \(HPE_/) as string,
    });
    const oversized = await exchange(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(oversized.head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(oversized.body).toEqual({
      statusCode: 431, error: 'headers_too_large', message: 'the request headers are too large',
    });
  });
});
