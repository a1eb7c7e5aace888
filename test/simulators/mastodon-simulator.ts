import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import busboy from 'busboy';

/**
 * A local stand-in for one Mastodon instance's REST API, checking requests the way Mastodon
 * does (bearer token, status length, visibility, reply target, Idempotency-Key) and recording
 * what it received. Facts: ../shared/platforms/open-and-community.md, section 2.
 */
export interface SimulatedStatus {
  id: string;
  url: string;
  uri: string;
  content: string;
  /** The raw `status` text as received. */
  text: string;
  mediaIds: string[];
  in_reply_to_id: string | null;
  visibility: string;
  spoiler_text: string;
  sensitive: boolean;
  language: string | null;
  created_at: string;
  accountId: string;
}

export interface SimulatedMedia {
  id: string;
  accountId: string;
  type: 'image' | 'video';
  mimeType: string;
  bytes: Buffer;
  description: string | null;
  /** Videos are "processed" after one poll, as real instances answer 202 then 206 then 200. */
  pollsUntilReady: number;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface InjectedFailure {
  /** Omitted: after `delayMs` the call goes through normally (a slow platform, not a failing one). */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Hold the connection this long before answering (to provoke client timeouts). */
  delayMs?: number;
}

const maxCharacters = 500;
const visibilities = new Set(['public', 'unlisted', 'private', 'direct']);

export class MastodonSimulator {
  readonly statuses: SimulatedStatus[] = [];
  readonly media: SimulatedMedia[] = [];
  readonly requests: ReceivedRequest[] = [];
  readonly #accounts = new Map<string, { id: string; username: string }>();
  readonly #idempotency = new Map<string, SimulatedStatus>();
  readonly #failures: (InjectedFailure | 'pass')[] = [];
  readonly #server: Server;
  #nextId = 110_000_000_000_000_000n;
  origin = '';
  /** Called for every status created (the by-hand script logs them). */
  onStatus: ((status: SimulatedStatus) => void) | null = null;

  constructor() {
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        send(response, 500, { error: `simulator failure: ${String(error)}` });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address();
    if (typeof address !== 'object' || address === null) throw new Error('simulator has no address');
    this.origin = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
  }

  /** Registers an account and returns the access token Mastodon would have issued for it. */
  addAccount(username: string): string {
    const token = randomUUID().replaceAll('-', '');
    this.#accounts.set(token, { id: String(this.#accounts.size + 1), username });
    return token;
  }

  revoke(token: string): void {
    this.#accounts.delete(token);
  }

  /** The next calls to POST /api/v1/statuses answer with these, in order; 'pass' lets one through. */
  failNext(...failures: (InjectedFailure | 'pass')[]): void {
    this.#failures.push(...failures);
  }

  statusesCreatedRequests(): ReceivedRequest[] {
    return this.requests.filter((request) => request.method === 'POST' && request.path === '/api/v1/statuses');
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    if (request.method === 'POST' && url.pathname === '/api/v2/media') {
      await this.#uploadMedia(request, response);
      return;
    }
    const body = await readBody(request);
    this.requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers, body });

    const account = this.#accountFor(request);
    if (request.method === 'POST' && url.pathname === '/api/v1/statuses') {
      if (account === null) { send(response, 401, { error: 'The access token is invalid' }); return; }
      const failure = this.#failures.shift();
      if (failure !== undefined && failure !== 'pass') {
        if (failure.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
        if (failure.status !== undefined) {
          send(response, failure.status, failure.body ?? { error: 'injected failure' }, failure.headers);
          return;
        }
      }
      this.#createStatus(account, request, body, response);
      return;
    }
    const attachment = /^\/api\/v1\/media\/(\d+)$/.exec(url.pathname);
    if (request.method === 'GET' && attachment !== null) {
      const media = this.media.find((candidate) => candidate.id === attachment[1] && candidate.accountId === account?.id);
      if (media === undefined) { send(response, 404, { error: 'Record not found' }); return; }
      if (media.pollsUntilReady > 0) {
        media.pollsUntilReady -= 1;
        send(response, 206, this.#presentMedia(media, false));
        return;
      }
      send(response, 200, this.#presentMedia(media, true));
      return;
    }
    const single = /^\/api\/v1\/statuses\/(\d+)$/.exec(url.pathname);
    if (request.method === 'GET' && single !== null) {
      const status = this.statuses.find((candidate) => candidate.id === single[1]);
      if (status === undefined) send(response, 404, { error: 'Record not found' });
      else send(response, 200, this.#present(status));
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/v2/instance') {
      send(response, 200, {
        domain: new URL(this.origin).host,
        configuration: {
          statuses: { max_characters: maxCharacters, max_media_attachments: 4, characters_reserved_per_url: 23 },
          media_attachments: { supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4'] },
        },
      });
      return;
    }
    const accountStatuses = /^\/api\/v1\/accounts\/([^/]+)\/statuses$/.exec(url.pathname);
    if (request.method === 'GET' && accountStatuses !== null) {
      if (account === null) { send(response, 401, { error: 'The access token is invalid' }); return; }
      const limit = Math.min(40, Number(url.searchParams.get('limit') ?? '20'));
      const own = this.statuses.filter((status) => status.accountId === accountStatuses[1]).reverse().slice(0, limit);
      send(response, 200, own.map((status) => this.#present(status)));
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials') {
      if (account === null) { send(response, 401, { error: 'The access token is invalid' }); return; }
      send(response, 200, { id: account.id, username: account.username, acct: account.username, display_name: account.username, avatar: `${this.origin}/avatars/${account.id}.png` });
      return;
    }
    send(response, 404, { error: 'Record not found' });
  }

  #accountFor(request: IncomingMessage): { id: string; username: string } | null {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    return match?.[1] === undefined ? null : (this.#accounts.get(match[1]) ?? null);
  }

  #createStatus(account: { id: string; username: string }, request: IncomingMessage, body: unknown, response: ServerResponse): void {
    const idempotencyKey = request.headers['idempotency-key'];
    if (typeof idempotencyKey === 'string') {
      const earlier = this.#idempotency.get(`${account.id}:${idempotencyKey}`);
      if (earlier !== undefined) { send(response, 200, this.#present(earlier)); return; }
    }
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const text = typeof fields.status === 'string' ? fields.status : '';
    const mediaIds = Array.isArray(fields.media_ids) ? fields.media_ids.filter((id): id is string => typeof id === 'string') : [];
    if (text.trim() === '' && mediaIds.length === 0) { send(response, 422, { error: "Validation failed: Text can't be blank" }); return; }
    const attached = mediaIds.map((id) => this.media.find((candidate) => candidate.id === id && candidate.accountId === account.id));
    if (attached.some((media) => media === undefined)) { send(response, 422, { error: 'Validation failed: media_ids are not yours or do not exist' }); return; }
    if (attached.some((media) => media !== undefined && media.pollsUntilReady > 0)) { send(response, 422, { error: 'Cannot attach files that have not finished processing. Try again in a moment!' }); return; }
    if (mediaIds.length > 4) { send(response, 422, { error: 'Validation failed: You can only attach up to 4 files' }); return; }
    if (codePoints(text) > maxCharacters) { send(response, 422, { error: `Validation failed: Text character limit of ${maxCharacters} exceeded` }); return; }
    const visibility = typeof fields.visibility === 'string' ? fields.visibility : 'public';
    if (!visibilities.has(visibility)) { send(response, 422, { error: `Validation failed: Visibility is not included in the list` }); return; }
    const inReplyTo = typeof fields.in_reply_to_id === 'string' ? fields.in_reply_to_id : null;
    if (inReplyTo !== null && !this.statuses.some((status) => status.id === inReplyTo)) {
      send(response, 404, { error: 'Record not found' });
      return;
    }
    const id = (this.#nextId++).toString();
    const status: SimulatedStatus = {
      id,
      url: `${this.origin}/@${account.username}/${id}`,
      uri: `${this.origin}/users/${account.username}/statuses/${id}`,
      content: `<p>${escapeHtml(text)}</p>`,
      text,
      mediaIds,
      in_reply_to_id: inReplyTo,
      visibility,
      spoiler_text: typeof fields.spoiler_text === 'string' ? fields.spoiler_text : '',
      sensitive: fields.sensitive === true,
      language: typeof fields.language === 'string' ? fields.language : null,
      created_at: new Date().toISOString(),
      accountId: account.id,
    };
    this.statuses.push(status);
    this.onStatus?.(status);
    if (typeof idempotencyKey === 'string') this.#idempotency.set(`${account.id}:${idempotencyKey}`, status);
    send(response, 200, this.#present(status));
  }

  #present(status: SimulatedStatus): Record<string, unknown> {
    const { text: _text, accountId: _accountId, mediaIds, ...wire } = status;
    const attachments = mediaIds.flatMap((id) => this.media.filter((media) => media.id === id)).map((media) => this.#presentMedia(media, true));
    return { ...wire, replies_count: 0, reblogs_count: 0, favourites_count: 0, media_attachments: attachments };
  }

  #presentMedia(media: SimulatedMedia, ready: boolean): Record<string, unknown> {
    return { id: media.id, type: media.type, url: ready ? `${this.origin}/system/media/${media.id}` : null, description: media.description };
  }

  /** POST /api/v2/media: multipart `file` (+ `description`); 200 for images, 202 for videos still processing. */
  async #uploadMedia(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const account = this.#accountFor(request);
    const fields: Record<string, string> = {};
    let file: { bytes: Buffer; mimeType: string } | null = null;
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: request.headers });
      parser.on('field', (name, value) => { fields[name] = value; });
      parser.on('file', (_name, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => { file = { bytes: Buffer.concat(chunks), mimeType: info.mimeType }; });
      });
      parser.once('close', resolve);
      parser.once('error', reject);
      request.pipe(parser);
    });
    this.requests.push({ method: 'POST', path: '/api/v2/media', headers: request.headers, body: { ...fields, fileBytes: (file as { bytes: Buffer } | null)?.bytes.length ?? 0 } });
    if (account === null) { send(response, 401, { error: 'The access token is invalid' }); return; }
    const uploaded = file as { bytes: Buffer; mimeType: string } | null;
    if (uploaded === null || uploaded.bytes.length === 0) { send(response, 422, { error: 'Validation failed: File can\'t be blank' }); return; }
    const type = uploaded.mimeType.startsWith('video/') ? 'video' : 'image';
    const media: SimulatedMedia = { id: (this.#nextId++).toString(), accountId: account.id, type, mimeType: uploaded.mimeType, bytes: uploaded.bytes, description: fields.description ?? null, pollsUntilReady: type === 'video' ? 1 : 0 };
    this.media.push(media);
    send(response, type === 'video' ? 202 : 200, this.#presentMedia(media, type === 'image'));
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return null;
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) return JSON.parse(raw) as unknown;
  if (type.startsWith('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  return raw;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

/** Mastodon counts characters as Ruby does: code points, not UTF-16 units. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
