import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldExchange } from '../kit/held-exchange.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import type { SimulatedRequest } from '../kit/simulator-server.ts';
import { chunkUnit, youtubeError } from './youtube-answers.ts';
import type { SessionRequest, UploadSession, YoutubeStore } from './youtube-store.ts';

/**
 * The addresses of YouTube's resumable upload sessions (the `Location` videos.insert answers), on
 * a server of their own: unlike the API, these take a body as a stream, so the simulator can
 * drop the connection after a set number of bytes, as a network does midway. It holds Google's
 * rules for a session:
 * - `PUT` with `Content-Range: bytes a-b/total` and exactly b-a+1 bytes: `a` must be what the
 *   session holds, `total` what videos.insert declared, and every chunk but the last a multiple
 *   of 256 KiB; a PUT without Content-Range is the whole file at once;
 * - an empty PUT whose Content-Range names only the total (`bytes *` and `/total`) asks the
 *   session's state;
 * - 308 with `Range: bytes=0-N` (no Range while it holds nothing) until the last byte is in,
 *   then 200 with the video resource, to every later status question too;
 * - an unknown session answers 404; one the test expired answers 410.
 * Each request and its answer are held to the session PUT written in the Google simulator's
 * operations (operations.json): a request off it is refused as YouTube's invalidParameter.
 * Facts: /work/shared/platforms/oauth-majors.md 7.2-7.3.
 */

export interface RunningUploadServer {
  url: string;
  close(): Promise<void>;
}

const wholeRange = /^bytes (\d+)-(\d+)\/(\d+)$/;
const statusRange = /^bytes \*\/(\d+)$/;

/** Sends one answer, held to the operations first. */
type Reply = (status: number, body?: unknown, headers?: Record<string, string>) => void;

function replyTo(response: ServerResponse, exchange: HeldExchange): Reply {
  return (status, body, headers = {}) => {
    exchange.answered({ status, ...(body === undefined ? {} : { body }), headers });
    const text = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    response.end(text);
  };
}

function refuse(reply: Reply, message: string): void {
  const { status, body } = youtubeError(400, 'badRequest', message, 'global', 'INVALID_ARGUMENT');
  reply(status, body);
}

/** 308 with the range held, or the finished video. */
function stateAnswer(store: YoutubeStore, reply: Reply, session: UploadSession): void {
  const video = store.videos.find((candidate) => candidate.id === session.videoId);
  if (video !== undefined) {
    reply(200, store.resource(video));
    return;
  }
  const range: Record<string, string> = session.takenLength === 0
    ? {} : { range: `bytes=0-${String(session.takenLength - 1)}` };
  reply(308, undefined, { ...range, 'x-guploader-uploadid': session.id });
}

/** The request as the operations check reads it, once its body is in. */
function simulated(request: IncomingMessage, url: URL, body: Buffer): SimulatedRequest {
  return {
    method: request.method ?? 'PUT', path: url.pathname, query: url.searchParams, headers: request.headers,
    text: '', raw: body, receivedAt: Date.now(),
  };
}

/** What one PUT may carry: its first byte and length, or a status question. */
type Planned =
  | { kind: 'status' }
  | { kind: 'bytes'; start: number; length: number }
  | { kind: 'refused'; why: string };

function plan(request: IncomingMessage, session: UploadSession): Planned {
  const header = request.headers['content-range'];
  const length = Number(request.headers['content-length'] ?? 'NaN');
  if (header === undefined) {
    if (session.takenLength > 0) return { kind: 'refused', why: 'Content-Range is required to resume an upload' };
    return { kind: 'bytes', start: 0, length };
  }
  const status = statusRange.exec(header);
  if (status !== null) {
    if (Number(status[1]) !== session.declaredLength) return { kind: 'refused', why: 'the total does not match' };
    return length === 0 ? { kind: 'status' } : { kind: 'refused', why: 'a status request has no body' };
  }
  const range = wholeRange.exec(header);
  if (range === null) return { kind: 'refused', why: `Content-Range "${header}" is not valid` };
  const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
  if (total !== session.declaredLength) {
    const why = `the total ${String(total)} is not the declared ${String(session.declaredLength)}`;
    return { kind: 'refused', why };
  }
  if (start !== session.takenLength) {
    return {
      kind: 'refused',
      why: `the upload offset is ${String(start)} byte(s); the session holds ${String(session.takenLength)}`,
    };
  }
  if (end < start || end >= total || end - start + 1 !== length) {
    return { kind: 'refused', why: 'Content-Range and Content-Length do not agree' };
  }
  if (end + 1 < total && length % chunkUnit !== 0) {
    return { kind: 'refused', why: `every chunk but the last must be a multiple of ${String(chunkUnit)} bytes` };
  }
  return { kind: 'bytes', start, length };
}

function receive(
  store: YoutubeStore,
  check: OperationCheck,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const url = new URL(request.url ?? '/', 'http://uploads');
  const session = store.sessions.get(url.searchParams.get('upload_id') ?? '');
  const record: SessionRequest = {
    sessionId: session?.id ?? '',
    contentRange: request.headers['content-range'] ?? null,
    bodyBytes: 0,
    kept: 0,
    outcome: 'refused',
  };
  store.sessionRequests.push(record);
  const planned = session === undefined || session.expired || url.pathname !== '/upload/youtube/v3/videos'
    || request.method !== 'PUT' ? null : plan(request, session);
  // A cut keeps this many bytes of this request, then drops it; taken from the store once.
  const cutAfter = planned?.kind === 'bytes' ? store.cutNextChunkAfter : null;
  if (cutAfter !== null) store.cutNextChunkAfter = null;
  const kept: Buffer[] = [];
  const body: Buffer[] = [];
  request.on('data', (chunk: Buffer) => {
    if (request.socket.destroyed) return;
    body.push(chunk);
    const room = (cutAfter ?? Number.POSITIVE_INFINITY) - record.bodyBytes;
    record.bodyBytes += chunk.length;
    if (planned?.kind === 'bytes') kept.push(room < chunk.length ? chunk.subarray(0, Math.max(0, room)) : chunk);
    if (cutAfter !== null && record.bodyBytes >= cutAfter && session !== undefined) {
      keep(session, kept, record);
      record.outcome = 'cut';
      request.socket.destroy();
    }
  });
  request.on('end', () => {
    if (request.socket.destroyed) return;
    const exchange = new HeldExchange(check, simulated(request, url, Buffer.concat(body)));
    const reply = replyTo(response, exchange);
    if (exchange.problems.length > 0) {
      const message = `Invalid request: ${exchange.problems.join('; ')}`;
      const { status, body: refusal } = youtubeError(400, 'invalidParameter', message, 'global', 'INVALID_ARGUMENT');
      reply(status, refusal);
      return;
    }
    if (session === undefined) {
      reply(404, youtubeError(404, 'notFound', 'Not Found', 'global', 'NOT_FOUND').body);
      return;
    }
    if (session.expired) {
      reply(410, youtubeError(410, 'gone', 'The upload session has expired.', 'global', 'NOT_FOUND').body);
      return;
    }
    if (planned === null || planned.kind === 'refused') {
      refuse(reply, planned === null ? 'only PUT to a session address is served here' : planned.why);
      return;
    }
    if (planned.kind === 'bytes') {
      if (record.bodyBytes !== planned.length) {
        refuse(reply, 'the body is not as long as Content-Length says');
        return;
      }
      keep(session, kept, record);
    }
    finish(store, { response, reply }, session, record);
  });
}

function keep(session: UploadSession, kept: Buffer[], record: SessionRequest): void {
  const bytes = Buffer.concat(kept);
  session.taken.push(bytes);
  session.takenLength += bytes.length;
  record.kept = bytes.length;
}

function finish(
  store: YoutubeStore,
  to: { response: ServerResponse; reply: Reply },
  session: UploadSession,
  record: SessionRequest,
): void {
  if (session.videoId === null && session.takenLength === session.declaredLength) {
    store.complete(session);
    if (store.loseNextCompletion) {
      store.loseNextCompletion = false;
      record.outcome = 'lost';
      to.response.socket?.destroy();
      return;
    }
  }
  record.outcome = session.videoId === null ? 'incomplete' : 'complete';
  stateAnswer(store, to.reply, session);
}

export async function startUploadServer(store: YoutubeStore): Promise<RunningUploadServer> {
  const check = OperationCheck.forPlatform('google');
  const server = createServer((request, response) => { receive(store, check, request, response); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    }),
  };
}
