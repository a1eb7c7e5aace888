import { connect } from 'node:net';

/**
 * One HTTP/1.1 request as bytes on the wire. fetch would repair or refuse most of what the
 * fuzzer sends (duplicated or conflicting framing headers, invalid bytes in the request line),
 * so requests go out over a plain socket.
 */
export interface RawRequest {
  method: string;
  /** The request target exactly as sent: may hold raw bytes that are not valid UTF-8. */
  target: Buffer;
  /** In order; a name may repeat. Values are bytes, so a header can carry Latin-1 or junk. */
  headers: [string, Buffer][];
  /** Already framed (a chunked body carries its own chunk lines). */
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'answered'; status: number; headers: Map<string, string>; body: Buffer; ms: number }
  /**
   * The server closed or reset the connection without a status line; `whileSending` when it did
   * so before the whole request was written (a server refusing an oversized body early).
   */
  | { kind: 'closed'; detail: string; whileSending: boolean; ms: number }
  | { kind: 'timeout'; ms: number };

interface ParsedHead { status: number; headers: Map<string, string>; bodyStart: number }

const headEnd = Buffer.from('\r\n\r\n');

function parseHead(data: Buffer, from: number): ParsedHead | null {
  const end = data.indexOf(headEnd, from);
  if (end === -1) return null;
  const lines = data.subarray(from, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers, bodyStart: end + headEnd.length };
}

/** Whether the whole response body is in `data`; without framing it ends when the server closes. */
function bodyComplete(head: ParsedHead, data: Buffer, method: string): boolean {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return true;
  const length = head.headers.get('content-length');
  if (length !== undefined) return data.length - head.bodyStart >= Number(length);
  if (/chunked/i.test(head.headers.get('transfer-encoding') ?? '')) {
    return data.subarray(head.bodyStart).includes('\r\n0\r\n\r\n')
      || data.subarray(head.bodyStart).toString('latin1').startsWith('0\r\n\r\n');
  }
  return false;
}

function serialise(request: RawRequest): Buffer {
  const lines: Buffer[] = [
    Buffer.from(`${request.method} `, 'latin1'), request.target, Buffer.from(' HTTP/1.1\r\n', 'latin1'),
  ];
  for (const [name, value] of request.headers) {
    lines.push(Buffer.from(`${name}: `, 'latin1'), value, Buffer.from('\r\n', 'latin1'));
  }
  lines.push(Buffer.from('\r\n', 'latin1'), request.body);
  return Buffer.concat(lines);
}

/**
 * Sends one request on its own connection and reads the first final answer (a 100 Continue is
 * skipped). Never rejects: a reset, a close without an answer and a timeout are outcomes.
 */
export function sendRaw(port: number, request: RawRequest, timeoutMs: number): Promise<RawOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let headFrom = 0;
    let head: ParsedHead | null = null;
    let settled = false;
    let lastError = '';
    let written = false;
    const finish = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const answered = (): RawOutcome | null => (head === null ? null : {
      kind: 'answered', status: head.status, headers: head.headers, body: data.subarray(head.bodyStart), ms: elapsed(),
    });
    const timer = setTimeout(() => { finish({ kind: 'timeout', ms: elapsed() }); }, timeoutMs);

    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      for (;;) {
        head ??= parseHead(data, headFrom);
        if (head === null) return;
        if (head.status >= 200 || Number.isNaN(head.status)) break;
        // An interim answer (100 Continue): the final one follows it.
        headFrom = head.bodyStart;
        head = null;
      }
      if (bodyComplete(head, data, request.method)) {
        finish(answered() ?? { kind: 'closed', detail: 'unreachable', whileSending: !written, ms: elapsed() });
      }
    });
    // The server may answer early (413) and reset while the body is still being written: keep what arrived.
    socket.on('error', (error: NodeJS.ErrnoException) => { lastError = error.code ?? error.message; });
    socket.on('close', () => {
      finish(answered() ?? {
        kind: 'closed', detail: lastError === '' ? 'closed' : lastError, whileSending: !written, ms: elapsed(),
      });
    });
    socket.on('connect', () => {
      socket.write(serialise(request), (error) => { written = error === undefined || error === null; });
    });
  });
}
