import { createHash, randomUUID } from 'node:crypto';
import type { RedisConnection } from '../../shared/queue/redis.ts';
import { z } from 'zod';

/** A finished request's answer, as it is handed back to a repeat of the request. */
export interface RememberedAnswer {
  status: number;
  body: unknown;
}

/** What a request carrying an idempotency key may do. */
export type IdempotencyClaim =
  /** This request runs; `claim` is handed to `remember` or `release` when it ends. */
  | { kind: 'first'; claim: HeldClaim }
  | { kind: 'replay'; answer: RememberedAnswer }
  /** The first request with this key is still running. */
  | { kind: 'running' }
  /** The key was used with another request (method, path or body). */
  | { kind: 'reused' };

/** The running record a first request wrote: only its holder may replace or remove it. */
export interface HeldClaim {
  scope: string;
  key: string;
  fingerprint: string;
  startedAt: number;
  running: string;
}

/** Replaces (or, without ARGV[2], deletes) the key only while it still holds this claim's running record. */
const ifStillHeld = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == nil then return redis.call('DEL', KEYS[1]) end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

const record = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running'), fingerprint: z.string(), startedAt: z.number() }),
  z.object({
    state: z.literal('done'), fingerprint: z.string(), startedAt: z.number(),
    status: z.number().int(), body: z.unknown(),
  }),
]);

export interface IdempotencyStoreOptions {
  keyPrefix: string;
  /** How long a finished answer is handed back: 24 hours from the first request. */
  rememberMs: number;
  /**
   * How long a running claim holds when nobody finishes it (the api process died mid-request):
   * after it, the key is free again instead of answering 409 for a day.
   */
  leaseMs: number;
}

/**
 * Idempotency keys in Redis, one record per organization and key: `SET NX` makes exactly one of
 * racing requests the first; the others see it running (409) or, once it finished, its answer.
 * Redis expiry removes records after `rememberMs`, so nothing needs sweeping.
 */
export class IdempotencyStore {
  readonly #redis: RedisConnection;
  readonly #options: IdempotencyStoreOptions;

  constructor(redis: RedisConnection, options: IdempotencyStoreOptions) {
    this.#redis = redis;
    this.#options = options;
  }

  /** The caller's key is hashed: any printable text of any length makes a short, safe Redis key. */
  #key(scope: string, key: string): string {
    return `${this.#options.keyPrefix}:${scope}:${createHash('sha256').update(key).digest('hex')}`;
  }

  async claim(scope: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim> {
    const redisKey = this.#key(scope, key);
    // The nonce makes this request's record its own, even against a twin started in the same millisecond.
    const running = JSON.stringify({ state: 'running', fingerprint, startedAt: now, nonce: randomUUID() });
    // A record can expire between SET NX and GET: the second round then claims the freed key.
    for (let round = 0; round < 2; round += 1) {
      const set = await this.#redis.set(redisKey, running, 'PX', this.#options.leaseMs, 'NX');
      if (set === 'OK') return { kind: 'first', claim: { scope, key, fingerprint, startedAt: now, running } };
      const stored = await this.#redis.get(redisKey);
      if (stored === null) continue;
      const found = record.parse(JSON.parse(stored));
      if (found.fingerprint !== fingerprint) return { kind: 'reused' };
      if (found.state === 'running') return { kind: 'running' };
      return { kind: 'replay', answer: { status: found.status, body: found.body } };
    }
    return { kind: 'running' };
  }

  /**
   * Keeps the first request's answer until `rememberMs` after it started. A claim whose lease ran
   * out and was taken by a later request is left to that request.
   */
  async remember(claim: HeldClaim, answer: RememberedAnswer): Promise<void> {
    const left = Math.max(1, claim.startedAt + this.#options.rememberMs - Date.now());
    const { fingerprint, startedAt } = claim;
    const done = JSON.stringify({ state: 'done', fingerprint, startedAt, status: answer.status, body: answer.body });
    await this.#redis.eval(ifStillHeld, 1, this.#key(claim.scope, claim.key), claim.running, done, left);
  }

  /** Frees the key of a request that did not succeed, so the caller can correct it and send it again. */
  async release(claim: HeldClaim): Promise<void> {
    await this.#redis.eval(ifStillHeld, 1, this.#key(claim.scope, claim.key), claim.running);
  }
}
