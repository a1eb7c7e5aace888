import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/** A request with its body's bytes: media segments are binary and must reach the simulator whole. */
export interface RawRequest extends SimulatedRequest {
  raw: Buffer;
}

/** An answer, or `lose`: X did the work and the connection broke before its answer left. */
export type XAnswer = SimulatedAnswer & { lose?: boolean };

export type XHandler = (request: RawRequest) => XAnswer | Promise<XAnswer>;

/** More than any request SPS makes: X takes segments of at most 5 MB and images of 5 MB. */
const maxBodyBytes = 8 * 1024 * 1024;

/**
 * The X simulator's HTTP side: like the kit's simulator server, but it keeps request bodies as
 * bytes and can destroy the socket after the work is done, so a test can lose an answer.
 */
export async function startXServer(handle: XHandler): Promise<RunningSimulator> {
  const received: SimulatedRequest[] = [];
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
    });
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://simulator');
      const raw = Buffer.concat(chunks);
      const request: RawRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        text: raw.toString('utf8'),
        raw,
      };
      received.push(request);
      Promise.resolve()
        .then(() => {
          if (size > maxBodyBytes) return { status: 413, body: { title: 'Payload Too Large', status: 413 } };
          return handle(request);
        })
        .then((answer: XAnswer) => {
          if (answer.lose === true) {
            incoming.socket.destroy();
            return;
          }
          const text = typeof answer.body === 'string' ? answer.body : null;
          const body = answer.body === undefined ? '' : text ?? JSON.stringify(answer.body);
          const type = text === null ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
          response.writeHead(answer.status, { 'content-type': type, ...answer.headers });
          response.end(body);
        })
        .catch((error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ title: 'Simulator failure', detail: String(error), status: 500 }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    }),
  };
}

/** One part of a multipart/form-data body: a field's text, or a file's bytes. */
export interface FormPart {
  name: string;
  fileName: string | null;
  contentType: string | null;
  data: Buffer;
}

/** The parts of a multipart/form-data body, or null when it is not one (X answers 400). */
export function multipartParts(request: RawRequest): FormPart[] | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.headers['content-type'] ?? '');
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!(request.headers['content-type'] ?? '').startsWith('multipart/form-data') || marker === undefined) return null;
  const delimiter = Buffer.from(`--${marker}`);
  const parts: FormPart[] = [];
  let at = request.raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (request.raw.subarray(start, start + 2).toString() === '--') break;
    const next = request.raw.indexOf(delimiter, start);
    if (next === -1) return null;
    // Each part: CRLF, headers, a blank line, the data, CRLF before the next delimiter.
    const section = request.raw.subarray(start + 2, next - 2);
    const split = section.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const headers = section.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:\s*form-data; name="([^"]*)"(?:; filename="([^"]*)")?/i.exec(headers);
    if (disposition?.[1] === undefined) return null;
    parts.push({
      name: disposition[1],
      fileName: disposition[2] ?? null,
      contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? null,
      data: section.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}
