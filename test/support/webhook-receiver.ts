import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got, with its own verdict on the signature. */
export interface ReceivedWebhook {
  receivedAt: number;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it arrived. */
  body: string;
  /** Whether SPS-Signature checks out against `secret` as it was when the request came. */
  signatureValid: boolean;
  /** The signature's `t`, in unix seconds. */
  timestamp: number | null;
}

/**
 * A receiver's own check, written from the README's description rather than from SPS's code:
 * `t=<seconds>,v1=<hex>`, where v1 is HMAC-SHA256 keyed with the secret over "<t>.<raw body>".
 */
export function verifySignature(header: string | undefined, body: string, secret: string): boolean {
  const fields = new Map((header ?? '').split(',').map((part) => {
    const separator = part.indexOf('=');
    return [part.slice(0, separator), part.slice(separator + 1)] as const;
  }));
  const timestamp = fields.get('t');
  const given = fields.get('v1');
  if (timestamp === undefined || given === undefined || !/^[0-9a-f]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/**
 * A webhook endpoint on loopback: records every request, answers with the statuses scripted in
 * `answers` (then 200), and verifies each signature itself with `secret`.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Statuses for the next requests, in order; 200 once they run out. */
  answers: number[] = [];
  secret = '';
  /** Milliseconds to wait before answering (for timeouts). */
  delayMs = 0;
  #server: Server | null = null;
  url = '';

  async start(path = '/hooks/sps'): Promise<this> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const header = request.headers['sps-signature'];
        const signature = typeof header === 'string' ? header : undefined;
        const timestamp = /(?:^|,)t=(\d+)/.exec(signature ?? '')?.[1];
        this.received.push({
          receivedAt: Date.now(),
          headers: request.headers,
          body,
          signatureValid: verifySignature(signature, body, this.secret),
          timestamp: timestamp === undefined ? null : Number(timestamp),
        });
        const status = this.answers.shift() ?? 200;
        setTimeout(() => {
          response.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'thanks' : `no: ${status}`);
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
    return this;
  }

  /** Requests carrying this delivery id (SPS-Delivery). */
  forDelivery(deliveryId: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.headers['sps-delivery'] === deliveryId);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => { resolve(); }));
  }
}
