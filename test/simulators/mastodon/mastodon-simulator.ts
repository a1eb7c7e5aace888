import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { MastodonAccounts, type Account } from './mastodon-accounts.ts';
import { MastodonApps } from './mastodon-apps.ts';
import type {
  InjectedFailure, ReceivedRequest, SimulatedMedia, SimulatedStatus, SimulatorOptions,
} from './mastodon-records.ts';
import { HeldExchange } from '../kit/held-exchange.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import { fieldsOf, formAsRead, parseBody, readMultipart, readSimulatedRequest, send } from './mastodon-http.ts';
import { defaultRateLimits, RateLimiter, type RateLimits, type Throttled } from './mastodon-rate-limiter.ts';
import { StatusesInFlight } from './mastodon-in-flight.ts';
import { authorizationRefusal, videoSizeLimit } from './mastodon-rules.ts';
import { MastodonTimeline } from './mastodon-timeline.ts';

export type {
  InjectedFailure, ReceivedRequest, SimulatedMedia, SimulatedStatus, SimulatorOptions,
} from './mastodon-records.ts';

type Reply = (status: number, body: unknown, headers?: Record<string, string>) => void;

/** Scopes the endpoints SPS uses require; a token needs one of them (`write` covers `write:*`). */
const scopesFor = {
  /** Creating and deleting a status. */
  postStatus: ['write:statuses'],
  uploadMedia: ['write:media'],
  readMedia: ['write:media'],
  readStatuses: ['read:statuses'],
  verifyCredentials: ['read:accounts', 'profile'],
} as const;

const tooManyRequests = { error: 'Too many requests' };

/**
 * A local stand-in for one Mastodon instance's REST API, refusing what Mastodon refuses (token
 * and scopes, status length with the content warning, media kinds, types and sizes, rate limits
 * with X-RateLimit-*), honouring Idempotency-Key, and recording what it received.
 * Facts: ../shared/platforms/open-and-community.md, section 2; rules in mastodon-rules.ts. What the
 * instance holds and shows is in mastodon-timeline.ts, who its users are in mastodon-accounts.ts:
 * this class routes the HTTP calls to them, past tokens, rate limits and the failures tests inject.
 */
export class MastodonSimulator {
  readonly requests: ReceivedRequest[] = [];
  /** Responses cut off on purpose (`loseResponse`), for tests to check the simulator did its part. */
  lostResponses = 0;
  /** Client registration and OAuth (`/api/v1/apps`, `/oauth/*`). */
  readonly apps = new MastodonApps();
  /** Status creations being handled now, the most at once, and a hold that keeps them waiting. */
  readonly statusesInFlight = new StatusesInFlight();
  readonly #accounts = new MastodonAccounts(this.apps);
  readonly #idempotency = new Map<string, SimulatedStatus>();
  readonly #failures: (InjectedFailure | 'pass')[] = [];
  readonly #deletionFailures: (InjectedFailure | 'pass')[] = [];
  readonly #throttledReads: number[] = [];
  readonly #limiter = new RateLimiter();
  readonly #rateLimits: RateLimits;
  /** How long each status creation waits before it is answered (a benchmark sets it between measures). */
  responseDelayMs: number;
  readonly #host: string;
  readonly #port: number;
  readonly #server: Server;
  readonly #timeline = new MastodonTimeline(
    () => this.origin,
    (accountId, statusesCount) => this.#accounts.presentById(accountId, this.origin, statusesCount),
  );
  readonly #operations = OperationCheck.forPlatform('mastodon');
  origin = '';
  /** Called for every status created (the by-hand script logs them). */
  onStatus: ((status: SimulatedStatus) => void) | null = null;

  constructor(options: SimulatorOptions = {}) {
    this.#host = options.host ?? '127.0.0.1';
    this.#port = options.port ?? 0;
    this.#rateLimits = { ...defaultRateLimits, ...options.rateLimits };
    this.responseDelayMs = options.responseDelayMs ?? 0;
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        send(response, 500, { error: `simulator failure: ${String(error)}` });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(this.#port, this.#host, resolve));
    const address = this.#server.address();
    if (typeof address !== 'object' || address === null) throw new Error('simulator has no address');
    this.origin = `http://${this.#host}:${address.port}`;
    return this;
  }

  get statuses(): SimulatedStatus[] {
    return this.#timeline.statuses;
  }

  get media(): SimulatedMedia[] {
    return this.#timeline.media;
  }

  /** The instance's `max_characters`: 500 as on mastodon.social; many instances allow more. */
  get maxCharacters(): number {
    return this.#timeline.maxCharacters;
  }

  set maxCharacters(characters: number) {
    this.#timeline.maxCharacters = characters;
  }

  get port(): number {
    return Number(new URL(this.origin).port);
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
  }

  /** Sets what other users did: an account's followers, a status's favourites and boosts. */
  setFollowers(username: string, count: number): void {
    this.#accounts.setFollowers(username, count);
  }

  react(statusId: string, reactions: { favourites: number; reblogs: number }): void {
    this.#timeline.react(statusId, reactions);
  }

  /**
   * Registers an account and returns the access token Mastodon would have issued for it,
   * with `scopes` (default `read write`, what most apps ask for).
   */
  addAccount(username: string, options: { scopes?: readonly string[] } = {}): string {
    return this.#accounts.add(username, options.scopes);
  }

  revoke(token: string): void {
    this.#accounts.revoke(token);
  }

  /** The next calls to POST /api/v1/statuses answer with these, in order; 'pass' lets one through. */
  failNext(...failures: (InjectedFailure | 'pass')[]): void {
    this.#failures.push(...failures);
  }

  /**
   * The next calls to DELETE /api/v1/statuses/:id answer with these, in order, without deleting;
   * `loseResponse` deletes, then drops the connection unanswered. 'pass' lets one through.
   */
  failNextDeletion(...failures: (InjectedFailure | 'pass')[]): void {
    this.#deletionFailures.push(...failures);
  }

  /** The next GET calls, one per wait given, answer 429 with `X-RateLimit-Reset` that long after the call. */
  throttleNextReads(...waitsMs: number[]): void {
    this.#throttledReads.push(...waitsMs);
  }

  statusesCreatedRequests(): ReceivedRequest[] {
    return this.requests.filter((request) => request.method === 'POST' && request.path === '/api/v1/statuses');
  }

  /** The Idempotency-Key of every POST /api/v1/statuses whose text was `text`, in arrival order. */
  idempotencyKeysFor(text: string): (string | null)[] {
    return this.statusesCreatedRequests()
      .filter((request) => fieldsOf(request.body).status === text)
      .map((request) => {
        const key = request.headers['idempotency-key'];
        return typeof key === 'string' ? key : null;
      });
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    const account = this.#accounts.fromAuthorization(request.headers.authorization);
    // Rack::Attack runs before the application: a throttled call is refused whatever it is.
    const throttle = account === null ? null : this.#limiter.hit(`api:${account.tokenId}`, this.#rateLimits.api);
    const isUpload = request.method === 'POST' && url.pathname === '/api/v2/media';
    // An upload is held to its operation once its form is read (its file is counted, not kept).
    const simulated = isUpload ? null : await readSimulatedRequest(request, url);
    let exchange = simulated === null ? null : new HeldExchange(this.#operations, simulated);
    const reply: Reply = (status, body, headers = {}) => {
      exchange?.answered({ status, body });
      send(response, status, body, { ...throttle?.headers, ...headers });
    };
    if (simulated === null) {
      await this.#uploadMedia(request, account, throttle, (held) => { exchange = held; }, reply);
      return;
    }
    const oauth = this.apps.routeFor(request.method ?? '', url.pathname);
    if (oauth !== null) {
      const { method, path, headers, text } = simulated;
      this.requests.push({ method, path, headers, body: text });
      if (this.#refusedOffDescription(exchange, reply)) return;
      const answer = oauth(simulated);
      exchange?.answered(answer);
      send(response, answer.status, answer.body ?? '', answer.headers);
      return;
    }
    const body = parseBody(simulated.text, request.headers['content-type'] ?? '');
    this.requests.push({ method: request.method ?? '', path: url.pathname, headers: request.headers, body });
    if (this.#throttled(request.method, throttle, reply)) return;
    if (this.#refusedOffDescription(exchange, reply)) return;
    /** The caller's account, or null after answering 401 (no valid token) or 403 (scopes). */
    const authorized = (scopes: readonly string[]): Account | null => {
      const refusal = authorizationRefusal(account, scopes);
      if (refusal === null) return account;
      reply(refusal.status, { error: refusal.error });
      return null;
    };

    if (request.method === 'POST' && url.pathname === '/api/v1/statuses') {
      const poster = authorized(scopesFor.postStatus);
      if (poster === null) return;
      await this.statusesInFlight.handle(poster.id, async () => {
        const failure = this.#failures.shift();
        const injected = failure === undefined || failure === 'pass' ? null : failure;
        const delayMs = injected?.delayMs ?? this.responseDelayMs;
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (injected?.status !== undefined) {
          // Exactly what the test asked for, without the throttle's headers: a bare injected 429 stays bare.
          send(response, injected.status, injected.body ?? { error: 'injected failure' }, injected.headers);
          return;
        }
        this.#createStatus(poster, request, body, reply, injected?.loseResponse === true);
      });
      return;
    }
    const attachment = /^\/api\/v1\/media\/(\d+)$/.exec(url.pathname);
    if (request.method === 'GET' && attachment !== null) {
      const owner = authorized(scopesFor.readMedia);
      if (owner === null) return;
      const polled = this.#timeline.poll(attachment[1] ?? '', owner.id);
      if (polled === null) reply(404, { error: 'Record not found' });
      else reply(polled.ready ? 200 : 206, this.#timeline.presentMedia(polled.media, polled.ready));
      return;
    }
    const single = /^\/api\/v1\/statuses\/(\d+)$/.exec(url.pathname);
    if (request.method === 'GET' && single !== null) {
      // A public endpoint: scopes are checked only when a token is given.
      if (request.headers.authorization !== undefined && authorized(scopesFor.readStatuses) === null) return;
      const status = this.statuses.find((candidate) => candidate.id === single[1]);
      if (status === undefined) reply(404, { error: 'Record not found' });
      else reply(200, this.#timeline.present(status));
      return;
    }
    if (request.method === 'DELETE' && single !== null) {
      const author = authorized(scopesFor.postStatus);
      if (author === null) return;
      const failure = this.#deletionFailures.shift();
      const injected = failure === undefined || failure === 'pass' ? null : failure;
      if (injected?.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, injected.delayMs));
      if (injected?.status !== undefined) {
        send(response, injected.status, injected.body ?? { error: 'injected failure' }, injected.headers);
        return;
      }
      const removed = this.#timeline.remove(single[1] ?? '', author.id);
      if (injected?.loseResponse === true && removed !== null) {
        this.lostResponses += 1;
        request.socket.destroy();
        return;
      }
      if (removed === null) reply(404, { error: 'Record not found' });
      else reply(200, removed);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/v2/instance') {
      reply(200, this.#timeline.instance());
      return;
    }
    const accountStatuses = /^\/api\/v1\/accounts\/([^/]+)\/statuses$/.exec(url.pathname);
    if (request.method === 'GET' && accountStatuses !== null) {
      if (authorized(scopesFor.readStatuses) === null) return;
      const limit = Math.min(40, Number(url.searchParams.get('limit') ?? '20'));
      const own = this.statuses.filter((status) => status.accountId === accountStatuses[1]).reverse().slice(0, limit);
      reply(200, own.map((status) => this.#timeline.present(status)));
      return;
    }
    if (request.method === 'GET' && url.pathname === '/api/v1/accounts/verify_credentials') {
      const me = authorized(scopesFor.verifyCredentials);
      if (me === null) return;
      const statusesCount = this.statuses.filter((status) => status.accountId === me.id).length;
      reply(200, this.#accounts.present(me, this.origin, statusesCount));
      return;
    }
    reply(404, { error: 'Record not found' });
  }

  /**
   * Mastodon refuses parameters its API does not take with 422 and the reason (Rails' strong
   * parameters and model validations), which the simulator reads from the operations file.
   */
  #refusedOffDescription(exchange: HeldExchange | null, reply: Reply): boolean {
    if (exchange === null || exchange.verdict.operation === null || exchange.problems.length === 0) return false;
    reply(422, { error: `Validation failed: ${exchange.problems.join(', ')}` });
    return true;
  }

  /** Answers 429 if Rack::Attack's throttle refuses the call, or a read throttled by `throttleNextReads`. */
  #throttled(method: string | undefined, throttle: Throttled | null, reply: Reply): boolean {
    if (throttle !== null && !throttle.allowed) {
      reply(429, tooManyRequests);
      return true;
    }
    const throttledFor = method === 'GET' ? this.#throttledReads.shift() : undefined;
    if (throttledFor === undefined) return false;
    reply(429, tooManyRequests, { 'X-RateLimit-Reset': new Date(Date.now() + throttledFor).toISOString() });
    return true;
  }

  /** PostStatusService: an idempotent repeat, the refusals, the rate limit, then the status. */
  #createStatus(account: Account, request: IncomingMessage, body: unknown, reply: Reply, loseResponse: boolean): void {
    const idempotencyKey = request.headers['idempotency-key'];
    if (typeof idempotencyKey === 'string') {
      const earlier = this.#idempotency.get(`${account.id}:${idempotencyKey}`);
      if (earlier !== undefined) {
        reply(200, this.#timeline.present(earlier));
        return;
      }
    }
    const fields = fieldsOf(body);
    const given = Array.isArray(fields.media_ids) ? (fields.media_ids as unknown[]) : [];
    const mediaIds = given.filter((id): id is string => typeof id === 'string');
    const refusal = this.#timeline.refusalFor(account.id, fields, mediaIds);
    if (refusal !== null) {
      reply(refusal.status, { error: refusal.error });
      return;
    }
    const statusesThrottle = this.#limiter.hit(`statuses:${account.id}`, this.#rateLimits.statuses);
    if (!statusesThrottle.allowed) {
      reply(429, tooManyRequests, statusesThrottle.headers);
      return;
    }
    const status = this.#timeline.addStatus(account, fields, mediaIds);
    this.onStatus?.(status);
    if (typeof idempotencyKey === 'string') this.#idempotency.set(`${account.id}:${idempotencyKey}`, status);
    if (loseResponse) {
      this.lostResponses += 1;
      request.socket.destroy();
      return;
    }
    reply(200, this.#timeline.present(status), statusesThrottle.headers);
  }

  /**
   * POST /api/v2/media: multipart `file` (+ `description`), judged by its bytes; 200 for images,
   * 202 for videos still processing. Bytes past the largest limit are counted, not kept.
   */
  async #uploadMedia(
    request: IncomingMessage,
    account: Account | null,
    throttle: Throttled | null,
    held: (exchange: HeldExchange) => void,
    reply: Reply,
  ): Promise<void> {
    // No upload larger than a video's limit is accepted, so no more than that needs keeping.
    const { fields, size, chunks } = await readMultipart(request, videoSizeLimit + 1);
    const received = { ...fields, fileBytes: size };
    this.requests.push({ method: 'POST', path: '/api/v2/media', headers: request.headers, body: received });
    const form = formAsRead(fields, size);
    const exchange = new HeldExchange(this.#operations, form);
    held(exchange);
    if (this.#throttled(request.method, throttle, reply)) return;
    if (this.#refusedOffDescription(exchange, reply)) return;
    const refusal = authorizationRefusal(account, scopesFor.uploadMedia);
    if (account === null || refusal !== null) {
      reply(refusal?.status ?? 401, { error: refusal?.error });
      return;
    }
    const mediaThrottle = this.#limiter.hit(`media:${account.id}`, this.#rateLimits.media);
    const answer: Reply = (status, body) => { reply(status, body, mediaThrottle.headers); };
    if (!mediaThrottle.allowed) {
      answer(429, tooManyRequests);
      return;
    }
    const description = fields.description ?? null;
    const media = await this.#timeline.addUpload(account.id, { size, chunks, description });
    if ('refused' in media) {
      answer(422, { error: media.refused });
      return;
    }
    answer(media.type === 'video' ? 202 : 200, this.#timeline.presentMedia(media, media.type === 'image'));
  }
}
