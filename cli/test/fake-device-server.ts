import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of POST /device/token. */
export interface TokenAnswer {
  status: number;
  body: unknown;
}

export interface FakeDeviceServerOptions {
  /** Answers to successive polls; the last one repeats. */
  tokenAnswers: TokenAnswer[];
  expiresIn?: number;
  interval?: number;
  /** The verification_uri to send instead of the server's own /device/verify page. */
  verificationUri?: string;
}

export interface FakeDeviceServer {
  origin: string;
  deviceCode: string;
  userCode: string;
  /** The device codes the client polled with, in order. */
  polls: unknown[];
  close(): Promise<void>;
}

export const pending: TokenAnswer = { status: 400, body: { error: 'authorization_pending' } };

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? null : JSON.parse(text) as unknown;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** A stand-in for the auth server's device endpoints, answering as the contract says. */
export async function startFakeDeviceServer(options: FakeDeviceServerOptions): Promise<FakeDeviceServer> {
  const deviceCode = `device-${Math.random().toString(36).slice(2)}`;
  const userCode = 'WXYZ-2345';
  const polls: unknown[] = [];
  let origin = '';
  let answered = 0;

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readJson(request);
      if (request.method === 'POST' && request.url === '/device/code') {
        send(response, 200, {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: options.verificationUri ?? `${origin}/device/verify`,
          expires_in: options.expiresIn ?? 60, interval: options.interval ?? 0.05,
        });
        return;
      }
      if (request.method === 'POST' && request.url === '/device/token') {
        const code = (body as { device_code?: unknown } | null)?.device_code;
        polls.push(code);
        if (code !== deviceCode) {
          send(response, 400, { error: 'invalid_request' });
          return;
        }
        const answer = options.tokenAnswers[Math.min(answered, options.tokenAnswers.length - 1)] ?? pending;
        answered += 1;
        send(response, answer.status, answer.body);
        return;
      }
      send(response, 404, { error: 'not_found' });
    })().catch((error: unknown) => { send(response, 500, { error: String(error) }); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    deviceCode,
    userCode,
    polls,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}
