import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { HeldExchange } from '../kit/held-exchange.ts';
import { MessageCheck } from '../kit/message-check.ts';
import type { DescribedOperation } from '../kit/operation-file.ts';
import type { SimulatedRequest } from '../kit/simulator-server.ts';
import { eventFault, signedEvent, type SignedEvent } from './nostr-signing.ts';

/**
 * A local Nostr relay speaking NIP-01 over a real WebSocket (RFC 6455 framing written here, on
 * node:http's 'upgrade'): REQ with filters (ids, authors, kinds, #<tag>, since, until, limit) answered
 * with the stored events, newest first, then EOSE, and then live with every new matching event until
 * CLOSE; EVENT checked (id, BIP-340 signature) and answered with OK, stored unless ephemeral (kinds
 * 20000 to 29999, NIP-01), an id it already holds answered OK true "duplicate:" and kept once; a
 * malformed message gets a NOTICE, a malformed REQ a CLOSED "invalid:". A plain HTTP GET asking for
 * application/nostr+json gets the relay information document (NIP-11). Publishing faults can be
 * queued (failNext), the way the Mastodon simulator's are, to break the connection around an accept.
 * As the RFC requires of a server, it drops a client whose frames are not masked.
 * Every message is held to test/simulators/nostr/operations.json (NIP-01, NIP-42, NIP-11): one a
 * relay would not take is refused as relays refuse it (an EVENT with OK false "invalid:", a REQ with
 * CLOSED "invalid:", anything else with a NOTICE), and every message it sends, the NIP-11 document
 * included, is checked too, so a test during which it said something no relay says fails.
 * Facts: ../shared/platforms/open-and-community.md, section 4.
 */
export type RelayEvent = SignedEvent;

export interface RelayOptions {
  /** Accept the connection but never answer a REQ (to provoke client timeouts). */
  silent?: boolean;
  /** Answer every REQ with CLOSED and this reason (e.g. "auth-required: ..."). */
  refuseWith?: string;
  /** Answer every EVENT with OK false and this reason (e.g. "blocked: ..."), as a relay that will not carry it. */
  refuseEventsWith?: string;
  /** The NIP-11 document served to `Accept: application/nostr+json`; a small default otherwise. */
  information?: unknown;
}

/**
 * What the relay does with the next EVENT it receives:
 * - 'pass': as usual;
 * - refuse: OK false with this message ("rate-limited: ...", "blocked: ..."), nothing stored;
 * - 'accept-then-drop': stores and publishes it, then closes the connection before the OK (the answer lost);
 * - 'drop': closes the connection without storing it or answering.
 */
export type EventFault = 'pass' | { refuse: string } | 'accept-then-drop' | 'drop';

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
  /** Stores the event (unless ephemeral) and sends it to the open subscriptions it matches, as if published. */
  addEvent(event: RelayEvent): void;
  /** Called with every event a client publishes that the relay accepted (how a signer on this relay listens). */
  onEvent(listener: (event: RelayEvent) => void): void;
  /** Queues what happens to the next EVENTs, one fault per EVENT, in order. */
  failNext(...faults: EventFault[]): void;
  /** The events the relay holds, in the order they arrived. */
  stored(): RelayEvent[];
  /** How many EVENT messages a client sent that carried this id (each attempt counts). */
  eventsSentWithId(id: string): number;
  close(): Promise<void>;
}

/** An event signed with `secretKey` (hex), the author's pubkey derived from it. */
export function relayEvent(secretKey: string, fields: Omit<RelayEvent, 'id' | 'sig' | 'pubkey'>): RelayEvent {
  return signedEvent(secretKey, fields);
}

const isEphemeral = (kind: number): boolean => kind >= 20000 && kind < 30000;

interface Filter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
  /** `#p`, `#e`...: the event must carry one of these values under that single-letter tag. */
  tags: Map<string, string[]>;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A filter the operations file already took: its `#<letter>` members become the tag conditions. */
function filterOf(value: unknown): Filter {
  const fields = value as Omit<Filter, 'tags'> & Record<string, unknown>;
  const tags = new Map<string, string[]>();
  for (const [key, values] of Object.entries(fields)) {
    if (key.startsWith('#') && isStrings(values)) tags.set(key.slice(1), values);
  }
  return { ...fields, tags };
}

const isEvent = (value: unknown): value is RelayEvent => {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return ['id', 'pubkey', 'content', 'sig'].every((key) => typeof fields[key] === 'string')
    && Number.isInteger(fields.created_at) && Number.isInteger(fields.kind)
    && Array.isArray(fields.tags) && fields.tags.every(isStrings);
};

function matches(event: RelayEvent, filter: Filter): boolean {
  return (filter.ids?.includes(event.id) ?? true)
    && (filter.authors?.includes(event.pubkey) ?? true)
    && (filter.kinds?.includes(event.kind) ?? true)
    && (filter.since === undefined || event.created_at >= filter.since)
    && (filter.until === undefined || event.created_at <= filter.until)
    && [...filter.tags].every(([name, values]) =>
      event.tags.some(([tag, value]) => tag === name && value !== undefined && values.includes(value)));
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
  /** Open subscriptions: socket → subscription id → filters. */
  const subscriptions = new Map<Duplex, Map<string, Filter[]>>();
  const listeners: ((event: RelayEvent) => void)[] = [];

  const check = MessageCheck.forMessages('nostr');
  const publishing = check.operation('WS EVENT');
  const querying = check.operation('WS REQ');

  /** Sends one message, checked as an answer to `answering` (null: one a relay may send unprompted). */
  const sendTo = (socket: Duplex, message: unknown[], answering: DescribedOperation | null) => {
    check.recordOff(answering?.route ?? `WS ${String(message[0])}`, check.checkServerMessage(message, answering));
    socket.write(serverFrame(1, Buffer.from(JSON.stringify(message))));
  };

  function publish(event: RelayEvent): void {
    if (!isEphemeral(event.kind)) events.push(event);
    for (const [socket, open] of subscriptions) {
      for (const [subscription, filters] of open) {
        if (filters.some((filter) => matches(event, filter))) sendTo(socket, ['EVENT', subscription, event], querying);
      }
    }
  }

  const faults: EventFault[] = [];

  function accept(socket: Duplex, candidate: RelayEvent): void {
    const ok = (accepted: boolean, text: string) => {
      sendTo(socket, ['OK', candidate.id, accepted, text], publishing);
    };
    const injected = faults.shift() ?? 'pass';
    if (injected === 'drop') {
      socket.destroy();
      return;
    }
    const refusal = typeof injected === 'object' ? injected.refuse : null;
    const fault = eventFault(candidate) ?? refusal ?? options.refuseEventsWith ?? null;
    if (fault !== null) {
      ok(false, fault);
      return;
    }
    // Relays key events by id: the same event again is acknowledged, never stored twice.
    if (events.some((event) => event.id === candidate.id)) {
      ok(true, 'duplicate: already have this event');
      return;
    }
    publish(candidate);
    for (const listener of listeners) listener(candidate);
    if (injected === 'accept-then-drop') {
      socket.destroy();
      return;
    }
    ok(true, '');
  }

  /**
   * A message off the description, refused the way relays refuse: an EVENT whose id can be named
   * gets OK false, a REQ whose subscription can be named gets CLOSED, anything else a NOTICE.
   */
  function refuse(socket: Duplex, message: unknown[], operation: DescribedOperation | null, problems: string[]): void {
    const reason = `invalid: ${problems.join('; ')}`;
    const [, second] = message;
    const event = second as Partial<RelayEvent> | undefined;
    if (operation === publishing && typeof event?.id === 'string' && /^[0-9a-f]{64}$/.test(event.id)) {
      sendTo(socket, ['OK', event.id, false, reason], operation);
    } else if (operation === querying && typeof second === 'string' && second !== '' && second.length <= 64) {
      sendTo(socket, ['CLOSED', second, reason], operation);
    } else {
      sendTo(socket, ['NOTICE', reason], operation);
    }
  }

  function answer(socket: Duplex, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      sendTo(socket, ['NOTICE', 'invalid: could not parse message'], null);
      return;
    }
    received.messages.push(message);
    const { operation, problems } = check.checkClientMessage(message);
    if (!Array.isArray(message) || operation === null || problems.length > 0) {
      refuse(socket, Array.isArray(message) ? message : [], operation, problems);
      return;
    }
    const [type, second, ...rest] = message as [string, unknown, ...unknown[]];
    if (type === 'EVENT') {
      accept(socket, second as RelayEvent);
      return;
    }
    const subscription = second as string;
    if (type === 'CLOSE') {
      subscriptions.get(socket)?.delete(subscription);
      return;
    }
    if (options.silent === true) return;
    if (options.refuseWith !== undefined) {
      sendTo(socket, ['CLOSED', subscription, options.refuseWith], querying);
      return;
    }
    const filters = rest.map(filterOf);
    for (const filter of filters) {
      const found = events.filter((event) => matches(event, filter)).sort((a, b) => b.created_at - a.created_at);
      for (const event of found.slice(0, filter.limit ?? found.length)) {
        sendTo(socket, ['EVENT', subscription, event], querying);
      }
    }
    sendTo(socket, ['EOSE', subscription], querying);
    const open = subscriptions.get(socket) ?? new Map<string, Filter[]>();
    open.set(subscription, filters);
    subscriptions.set(socket, open);
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

  const information = options.information ?? {
    name: 'SPS relay simulator',
    // NIP-11: software, when given, is the URL of the relay software's homepage.
    software: 'https://sps.invalid/relay-simulator',
    supported_nips: [1, 11],
    limitation: { max_message_length: 65536, max_content_length: 8196, auth_required: false, payment_required: false },
  };
  const server = createServer((request, response) => {
    // NIP-11 is the relay's one HTTP operation; its request carries no body worth reading.
    const url = new URL(request.url ?? '/', 'http://relay');
    const held: SimulatedRequest = {
      method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers,
      text: '', raw: Buffer.alloc(0), receivedAt: Date.now(),
    };
    const exchange = new HeldExchange(check, held);
    if (request.headers.accept?.includes('application/nostr+json') === true) {
      exchange.answered({ status: 200, body: information });
      response.writeHead(200, {
        'content-type': 'application/nostr+json',
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*',
        'access-control-allow-methods': 'GET',
      });
      response.end(JSON.stringify(information));
      return;
    }
    exchange.answered({ status: 426, body: 'Upgrade Required' });
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
    socket.once('close', () => {
      sockets.delete(socket);
      subscriptions.delete(socket);
    });
    // A client that vanishes mid-frame is the test's business, not the relay's: drop the socket.
    socket.on('error', () => { socket.destroy(); });
    speak(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${String(port)}`,
    received,
    addEvent: publish,
    onEvent: (listener) => { listeners.push(listener); },
    failNext: (...next) => { faults.push(...next); },
    stored: () => [...events],
    eventsSentWithId: (id) => received.messages.filter((message) =>
      Array.isArray(message) && message[0] === 'EVENT' && isEvent(message[1]) && message[1].id === id).length,
    close: () => new Promise<void>((resolve, reject) => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      server.close((error) => { if (error === undefined) resolve(); else reject(error); });
    }),
  };
}
