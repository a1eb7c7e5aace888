import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { solidPng } from '../support/sample-media.ts';

/** The app's picture, served from loopback so the consent screen loads a real image. */
export const logoSize = 64;
const logo = solidPng(logoSize, [36, 87, 197]);

/** The third-party app's side of the flow: records every query its redirect URL receives. */
export class CallbackServer {
  readonly received: URLSearchParams[] = [];
  #server: Server | null = null;
  #origin = '';

  get origin(): string {
    return this.#origin;
  }

  get redirectUrl(): string {
    return `${this.#origin}/callback`;
  }

  get pictureUrl(): string {
    return `${this.#origin}/logo.png`;
  }

  /** The query of the last redirect received. */
  get last(): URLSearchParams {
    const last = this.received.at(-1);
    if (last === undefined) throw new Error('the app received no redirect yet');
    return last;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://callback.invalid');
      if (url.pathname === '/logo.png') {
        response.writeHead(200, { 'Content-Type': 'image/png' }).end(logo);
        return;
      }
      if (url.pathname === '/callback') {
        this.received.push(url.searchParams);
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Test app</title><h1>Back at the test app</h1>');
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => { if (error === undefined) resolve(); else reject(error); }));
  }
}
