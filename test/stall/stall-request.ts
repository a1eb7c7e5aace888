import { request as httpRequest } from 'node:http';
import type { RequestTemplate } from '../fuzz/request-mutations.ts';

/** One request of the suite, ready to send. */
export interface StallRequest {
  method: string;
  /** Path and query, encoded. */
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type StallOutcome =
  | { kind: 'answered'; status: number; contentType: string; body: string }
  /** The server closed or reset the connection without answering. */
  | { kind: 'dropped'; detail: string }
  | { kind: 'hung' };

/**
 * Where a JSON body's string leaf is to be replaced by raw JSON text (deep nesting cannot be
 * built as a value: JSON.stringify would overflow the stack first).
 */
export interface RawJsonLeaf {
  marker: string;
  json: string;
}

function encodedTarget(template: RequestTemplate): string {
  const path = template.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => (
    encodeURIComponent(template.params[name] ?? '')
  ));
  const query = template.query.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  return query.length === 0 ? path : `${path}?${query.join('&')}`;
}

async function encodedBody(
  template: RequestTemplate,
  raw: RawJsonLeaf | null,
): Promise<{ bytes: Buffer; contentType: string | null }> {
  const body = template.body;
  switch (body.kind) {
    case 'none': return { bytes: Buffer.alloc(0), contentType: null };
    case 'json': {
      const text = JSON.stringify(body.value);
      const json = raw === null ? text : text.replace(JSON.stringify(raw.marker), raw.json);
      return { bytes: Buffer.from(json), contentType: 'application/json' };
    }
    case 'form': return {
      bytes: Buffer.from(new URLSearchParams(body.fields).toString()),
      contentType: 'application/x-www-form-urlencoded',
    };
    case 'multipart': {
      const form = new FormData();
      form.append(body.field, new Blob([body.bytes], { type: body.contentType }), body.fileName);
      // The platform's own multipart encoder frames it, boundary included.
      const framed = new Response(form);
      return {
        bytes: Buffer.from(await framed.arrayBuffer()),
        contentType: framed.headers.get('content-type'),
      };
    }
  }
}

/** A fuzz template (a valid request to one route) as bytes; `raw` splices raw JSON into its body. */
export async function renderTemplate(template: RequestTemplate, raw: RawJsonLeaf | null = null): Promise<StallRequest> {
  const { bytes, contentType } = await encodedBody(template, raw);
  const headers: Record<string, string> = Object.fromEntries(template.headers);
  if (contentType !== null && headers['Content-Type'] === undefined) headers['Content-Type'] = contentType;
  return { method: template.method, target: encodedTarget(template), headers, body: bytes };
}

let addressesUsed = 0;

/**
 * A loopback address of its own for each request (127.0.x.y): every request is a new client,
 * so the per-address throttles of logins and sign-ups never answer 429 before the input is read.
 */
function nextClientAddress(): string {
  addressesUsed += 1;
  const host = 2 + (addressesUsed % 60_000);
  return `127.0.${String(Math.floor(host / 250))}.${String(1 + (host % 250))}`;
}

/** Sends one request on a connection of its own and reads the whole answer; never rejects. */
export function sendStallRequest(port: number, request: StallRequest, timeoutMs: number): Promise<StallOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: StallOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      resolve(outcome);
    };
    const outgoing = httpRequest({
      host: '127.0.0.1', port, localAddress: nextClientAddress(), method: request.method, path: request.target,
      headers: { ...request.headers, 'Content-Length': String(request.body.length), Connection: 'close' },
      agent: false,
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => { chunks.push(chunk); });
      response.on('end', () => {
        settle({
          kind: 'answered', status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      response.on('error', (error) => { settle({ kind: 'dropped', detail: `while reading: ${error.message}` }); });
    });
    const timer = setTimeout(() => { settle({ kind: 'hung' }); }, timeoutMs);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      settle({ kind: 'dropped', detail: error.code ?? error.message });
    });
    outgoing.end(request.body);
  });
}
