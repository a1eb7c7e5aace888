import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisConnection } from './redis.ts';

/** Deletes the key only while it still holds our token, so an expired holder cannot free a successor's lock. */
const releaseScript =
  'if redis.call(\'get\', KEYS[1]) == ARGV[1] then return redis.call(\'del\', KEYS[1]) else return 0 end';

export class MutexTimeoutError extends Error {
  constructor(key: string, waitedMs: number) {
    super(`lock ${key} still held after ${String(waitedMs)} ms`);
    this.name = 'MutexTimeoutError';
  }
}

export interface MutexOptions {
  /** The lock frees itself after this long, so a process that dies holding it blocks nobody for ever. */
  holdMs: number;
  /** How long a caller waits for the lock before giving up with MutexTimeoutError. */
  waitMs: number;
  /** Pause between attempts while another process holds the lock. */
  pollMs?: number;
}

/**
 * Runs `work` while holding a Redis lock (`SET NX PX`), one holder across every process at a
 * time. `work` must finish well within `holdMs`; callers give it a platform timeout below it.
 */
export async function withRedisMutex<T>(
  redis: RedisConnection,
  key: string,
  options: MutexOptions,
  work: () => Promise<T>,
): Promise<T> {
  const token = randomBytes(16).toString('hex');
  const pollMs = options.pollMs ?? 50;
  const started = Date.now();
  for (;;) {
    const acquired = await redis.set(key, token, 'PX', options.holdMs, 'NX');
    if (acquired === 'OK') break;
    const waited = Date.now() - started;
    if (waited >= options.waitMs) throw new MutexTimeoutError(key, waited);
    await sleep(pollMs);
  }
  try {
    return await work();
  } finally {
    await redis.eval(releaseScript, 1, key, token);
  }
}
