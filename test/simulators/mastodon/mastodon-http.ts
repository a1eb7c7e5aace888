import type { IncomingMessage, ServerResponse } from 'node:http';
import busboy from 'busboy';
import type { SimulatedRequest } from '../kit/simulator-server.ts';

// How the Mastodon simulator reads requests and writes answers, as Rails does for the API.

export function fieldsOf(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

export function stringField(fields: Record<string, unknown>, name: string): string | null {
  const value = fields[name];
  return typeof value === 'string' ? value : null;
}

export async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function parseBody(raw: string, type: string): unknown {
  if (raw === '') return null;
  if (type.startsWith('application/json')) return JSON.parse(raw) as unknown;
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  return raw;
}

/** A request read whole into the kit's shape, for the handlers the simulators share (OAuth). */
export async function readSimulatedRequest(request: IncomingMessage, url: URL): Promise<SimulatedRequest> {
  const text = await readText(request);
  return {
    method: request.method ?? '', path: url.pathname, query: url.searchParams, headers: request.headers, text,
    raw: Buffer.from(text), receivedAt: Date.now(),
  };
}

/**
 * An upload's form as it was read, written back as a request to hold to the operations: its text
 * fields and its file part, whose bytes (counted, perhaps not kept) are the simulator's to judge.
 */
export function formAsRead(fields: Record<string, string>, fileBytes: number): SimulatedRequest {
  const boundary = 'form-as-read';
  const parts = Object.entries(fields)
    .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const file = fileBytes > 0
    ? [`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload"\r\n\r\n\r\n`] : [];
  const text = `${[...parts, ...file].join('')}--${boundary}--\r\n`;
  return {
    method: 'POST', path: '/api/v2/media', query: new URLSearchParams(),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    text, raw: Buffer.from(text), receivedAt: Date.now(),
  };
}

/** A multipart form as read: its text fields, and how big its file part was with the bytes kept of it. */
export interface MultipartForm {
  fields: Record<string, string>;
  /** Every byte of the file part, those dropped past `keepBytes` included. */
  size: number;
  /** Left unjoined: most refusals come before the bytes are looked at. */
  chunks: Buffer[];
}

/**
 * Reads a multipart form with one file part. Bytes past `keepBytes` are counted, not kept, so
 * an upload over every size limit is measured and refused without being held in memory.
 */
export async function readMultipart(request: IncomingMessage, keepBytes: number): Promise<MultipartForm> {
  const fields: Record<string, string> = {};
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const parser = busboy({ headers: request.headers });
    parser.on('field', (name, value) => { fields[name] = value; });
    parser.on('file', (_name, stream) => {
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= keepBytes) chunks.push(chunk);
      });
    });
    parser.once('close', resolve);
    parser.once('error', reject);
    request.pipe(parser);
  });
  return { fields, size, chunks };
}

export function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}
