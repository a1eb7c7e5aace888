import { Redis } from 'ioredis';

/**
 * Workers block on Redis and must never give up on a command (BullMQ requires
 * `maxRetriesPerRequest: null`); the api fails fast instead, so a request is answered with 503
 * rather than hanging while Redis is away.
 */
export function createRedis(url: string, role: 'worker' | 'producer'): Redis {
  return new Redis(url, role === 'worker'
    ? { maxRetriesPerRequest: null, enableReadyCheck: true }
    : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 });
}
