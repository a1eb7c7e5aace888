import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A local Nostr relay speaking NIP-01 over a real WebSocket (RFC 6455 framing written here, on
 * node:http's 'upgrade'): REQ with filters (ids, authors, kinds, since, until, limit) answered with
 * the stored events, newest first, then EOSE; CLOSE ends a subscription; a malformed message gets
 * a NOTICE, a malformed REQ a CLOSED "invalid:". As the RFC requires of a server, it drops a
 * client whose frames are not masked. Facts: ../shared/platforms/open-and-community.md, section 4.
 */
export interface RelayEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

export interface RelayOptions {
  /** Accept the connection but never answer a REQ (to provoke client timeouts). */
  silent?: boolean;
  /** Answer every REQ with CLOSED and this reason (e.g. "auth-required: ..."). */
  refuseWith?: string;
}

export interface RelayReceived {
  /** Every text message a client sent, parsed. */
  messages: unknown[];
  /** Frames that arrived unmasked (a client bug a real relay disconnects for). */
  unmaskedFrames: number;
}

export interface NostrRelaySimulator {
  /** ws://127.0.0.1:<port> */
  url: string;
  received: RelayReceived;
  addEvent(event: RelayEvent): void;
  close(): Promise<void>;
}

/** An event with a correct NIP-01 id. The simulator cannot sign: `sig` is filler of the right shape. */
export function relayEvent(fields: Omit<RelayEvent, 'id' | 'sig'>): RelayEvent {
  const serialized = JSON.stringify([0, fields.pubkey, fields.created_at, fields.kind, fields.tags, fields.content]);
  const id = createHash('sha256').update(serialized, 'utf8').digest('hex');
  return { ...fields, id, sig: randomBytes(64).toString('hex') };
}

interface Filter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
const isNumbers = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((item) => Number.isInteger(item));

function filterOf(value: unknown): Filter | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const fields = value as Record<string, unknown>;
  if (fields.ids !== undefined && !isStrings(fields.ids)) return null;
  if (fields.authors !== undefined && !isStrings(fields.authors)) return null;
  if (fields.kinds !== undefined && !isNumbers(fields.kinds)) return null;
  for (const key of ['since', 'until', 'limit']) {
    if (fields[key] !== undefined && !Number.isInteger(fields[key])) return null;
  }
  return fields;
}

function matches(event: RelayEvent, filter: Filter): boolean {
  return (filter.ids?.includes(event.id) ?? true)
    && (filter.authors?.includes(event.pubkey) ?? true)
    && (filter.kinds?.includes(event.kind) ?? true)
    && (filter.since === undefined || event.created_at >= filter.since)
    && (filter.until === undefined || event.created_at <= filter.until);
}

/** A server frame: never masked, always final. */
function serverFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  if (length < 126) return Buffer.concat([Buffer.from([0x80 | opcode, length]), payload]);
  if (length < 65536) return Buffer.concat([Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]), payload]);
  const size = Buffer.alloc(8);
  size.writeBigUInt64BE(BigInt(length));
  return Buffer.concat([Buffer.from([0x80 | opcode, 127]), size, payload]);
}

export async function startNostrRelaySimulator(options: RelayOptions = {}): Promise<NostrRelaySimulator> {
  const events: RelayEvent[] = [];
  const received: RelayReceived = { messages: [], unmaskedFrames: 0 };
  const sockets = new Set<Duplex>();

  function answer(socket: Duplex, text: string): void {
    const send = (message: unknown[]) => { socket.write(serverFrame(1, Buffer.from(JSON.stringify(message)))); };
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      send(['NOTICE', 'invalid: could not parse message']);
      return;
    }
    received.messages.push(message);
    if (!Array.isArray(message) || typeof message[0] !== 'string') {
      send(['NOTICE', 'invalid: message must be a JSON array']);
      return;
    }
    const [type, subscription, ...rest] = message as [string, unknown, ...unknown[]];
    if (type === 'CLOSE') return;
    if (type !== 'REQ') {
      send(['NOTICE', `invalid: unknown message type ${type}`]);
      return;
    }
    if (typeof subscription !== 'string' || subscription === '' || subscription.length > 64) {
      send(['NOTICE', 'invalid: subscription id must be a string of 1 to 64 characters']);
      return;
    }
    if (options.silent === true) return;
    if (options.refuseWith !== undefined) {
      send(['CLOSED', subscription, options.refuseWith]);
      return;
    }
    const filters = rest.map(filterOf);
    if (filters.length === 0 || filters.includes(null)) {
      send(['CLOSED', subscription, 'invalid: malformed filter']);
      return;
    }
    for (const filter of filters) {
      if (filter === null) continue;
      const found = events.filter((event) => matches(event, filter)).sort((a, b) => b.created_at - a.created_at);
      for (const event of found.slice(0, filter.limit ?? found.length)) send(['EVENT', subscription, event]);
    }
    send(['EOSE', subscription]);
  }

  function speak(socket: Duplex): void {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const first = pending.readUInt8(0);
        const second = pending.readUInt8(1);
        let length = second & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (pending.length < 4) return;
          length = pending.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (pending.length < 10) return;
          length = Number(pending.readBigUInt64BE(2));
          offset = 10;
        }
        if ((second & 0x80) === 0) {
          received.unmaskedFrames += 1;
          socket.destroy();
          return;
        }
        if (pending.length < offset + 4 + length) return;
        const mask = pending.subarray(offset, offset + 4);
        const payload = Buffer.from(pending.subarray(offset + 4, offset + 4 + length));
        payload.forEach((byte, index) => { payload[index] = byte ^ (mask[index % 4] ?? 0); });
        pending = pending.subarray(offset + 4 + length);
        const opcode = first & 0x0f;
        if (opcode === 8) {
          socket.end(serverFrame(8, Buffer.alloc(0)));
          return;
        }
        if (opcode === 9) socket.write(serverFrame(10, payload));
        if (opcode === 1) answer(socket, payload.toString('utf8'));
      }
    });
  }

  const server = createServer((_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain' });
    response.end('Upgrade Required');
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    const key = request.headers['sec-websocket-key'];
    const upgrade = request.headers.upgrade?.toLowerCase();
    if (typeof key !== 'string' || upgrade !== 'websocket' || request.headers['sec-websocket-version'] !== '13') {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    const head = [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${accept}`,
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A client that vanishes mid-frame is the test's business, not the relay's: drop the socket.
    socket.on('error', () => { socket.destroy(); });
    speak(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${String(port)}`,
    received,
    addEvent: (event) => { events.push(event); },
    close: () => new Promise<void>((resolve, reject) => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      server.close((error) => { if (error === undefined) resolve(); else reject(error); });
    }),
  };
}
