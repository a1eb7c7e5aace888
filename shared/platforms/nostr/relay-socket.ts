import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { pinnedLookup } from '../../net/pinned-lookup.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';

/**
 * One WebSocket (RFC 6455) to a relay the user named: text messages only, which is all NIP-01
 * uses. The connection goes through the pinned lookup, so a relay name that resolves to an
 * address the policy forbids is refused at connect time, like every other user-given host.
 */
export interface RelaySocket {
  send(message: string): void;
  close(): void;
}

export interface RelayHandlers {
  onMessage(text: string): void;
  /** Called once, when the socket ends for any reason; `error` is null for a clean close. */
  onClose(error: Error | null): void;
}

const handshakeGuid = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** A relay message larger than this is not a profile: the socket is dropped rather than the bytes held. */
const maxMessageBytes = 1024 * 1024;

const opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** XORs the payload with the 4-byte mask, which both masks and unmasks (RFC 6455 section 5.3). */
function applyMask(payload: Buffer, mask: Buffer): Buffer {
  const result = Buffer.from(payload);
  for (let index = 0; index < result.length; index += 1) result[index] = (result[index] ?? 0) ^ (mask[index % 4] ?? 0);
  return result;
}

/** A client frame: always masked, always final. */
function clientFrame(code: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | code, 0x80 | length])
    : length < 65536 ? Buffer.from([0x80 | code, 0x80 | 126, length >> 8, length & 0xff])
      : Buffer.concat([Buffer.from([0x80 | code, 0x80 | 127]), bigEndian64(length)]);
  const mask = randomBytes(4);
  return Buffer.concat([head, mask, applyMask(payload, mask)]);
}

function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

interface Frame {
  final: boolean;
  code: number;
  payload: Buffer;
  size: number;
}

/** The first whole frame in `buffer`, or null while more bytes are needed. */
function readFrame(buffer: Buffer): Frame | null {
  if (buffer.length < 2) return null;
  const first = buffer.readUInt8(0);
  const second = buffer.readUInt8(1);
  let length = second & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    const long = buffer.readBigUInt64BE(2);
    length = long > BigInt(maxMessageBytes) ? maxMessageBytes + 1 : Number(long);
    offset = 10;
  }
  if (length > maxMessageBytes) throw new Error(`the relay sent a frame larger than ${String(maxMessageBytes)} bytes`);
  const masked = (second & 0x80) !== 0;
  const mask = masked ? buffer.subarray(offset, offset + 4) : null;
  if (masked) offset += 4;
  if (buffer.length < offset + length) return null;
  const body = buffer.subarray(offset, offset + length);
  const payload = mask === null ? Buffer.from(body) : applyMask(body, mask);
  return { final: (first & 0x80) !== 0, code: first & 0x0f, payload, size: offset + length };
}

function speak(socket: Duplex, head: Buffer, handlers: RelayHandlers): RelaySocket {
  let pending = head;
  let parts: Buffer[] = [];
  let partsSize = 0;
  let closed = false;
  const finish = (error: Error | null) => {
    if (closed) return;
    closed = true;
    socket.destroy();
    handlers.onClose(error);
  };

  const take = (frame: Frame) => {
    switch (frame.code) {
      case opcode.ping:
        socket.write(clientFrame(opcode.pong, frame.payload));
        return;
      case opcode.pong:
        return;
      case opcode.close:
        finish(null);
        return;
      default:
        break;
    }
    if (frame.code !== opcode.continuation) parts = [];
    parts.push(frame.payload);
    partsSize += frame.payload.length;
    if (partsSize > maxMessageBytes) {
      throw new Error(`the relay sent a message larger than ${String(maxMessageBytes)} bytes`);
    }
    if (!frame.final) return;
    const message = Buffer.concat(parts);
    parts = [];
    partsSize = 0;
    handlers.onMessage(message.toString('utf8'));
  };

  const drain = () => {
    try {
      for (let frame = readFrame(pending); frame !== null && !closed; frame = readFrame(pending)) {
        pending = pending.subarray(frame.size);
        take(frame);
      }
    } catch (error) {
      finish(error instanceof Error ? error : new Error(String(error)));
    }
  };

  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    drain();
  });
  socket.once('error', (error) => { finish(error); });
  socket.once('close', () => { finish(null); });
  drain();
  return {
    send: (message) => { if (!closed) socket.write(clientFrame(opcode.text, Buffer.from(message, 'utf8'))); },
    close: () => {
      if (closed) return;
      socket.write(clientFrame(opcode.close, Buffer.alloc(0)));
      finish(null);
    },
  };
}

/**
 * Opens a WebSocket to `relayUrl` (wss://, or ws:// where the policy allows http). Rejects with a
 * FetchFailure for a refused address and an Error for anything else that stops the handshake.
 */
export function openRelaySocket(
  relayUrl: URL,
  policy: ConnectionPolicy,
  signal: AbortSignal,
  handlers: RelayHandlers,
): Promise<RelaySocket> {
  const secure = relayUrl.protocol === 'wss:';
  // The address rules are the same as for http: ws is the plain-text form, wss the TLS one.
  const httpUrl = new URL(relayUrl);
  httpUrl.protocol = secure ? 'https:' : 'http:';
  checkPinnedTarget(httpUrl, policy);
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(httpUrl, {
      method: 'GET',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': key,
        'User-Agent': 'SPS/0.1 (Social Publishing Service)',
      },
      lookup: pinnedLookup(policy),
      agent: false,
      signal,
      ...(policy.ca === undefined ? {} : { ca: policy.ca }),
    });
    request.once('response', (response: IncomingMessage) => {
      response.resume();
      reject(new Error(`the relay answered HTTP ${String(response.statusCode ?? 0)} instead of opening a WebSocket`));
    });
    request.once('upgrade', (response: IncomingMessage, socket: Duplex, head: Buffer) => {
      const expected = createHash('sha1').update(`${key}${handshakeGuid}`).digest('base64');
      if (response.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        reject(new Error('the relay answered the WebSocket handshake with a wrong Sec-WebSocket-Accept'));
        return;
      }
      resolve(speak(socket, head, handlers));
    });
    request.once('error', (error) => {
      reject(error instanceof FetchFailure || !(error.cause instanceof FetchFailure) ? error : error.cause);
    });
    request.end();
  });
}
