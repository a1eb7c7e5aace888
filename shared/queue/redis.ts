import { Redis } from 'ioredis';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';

/**
 * Workers block on Redis and must never give up on a command (BullMQ requires
 * `maxRetriesPerRequest: null`); the api fails fast instead, so a request is answered with 503
 * rather than hanging while Redis is away. Connection errors while Redis is away are logged
 * (once per reconnection attempt) when a logger is given; without any listener ioredis would
 * print "Unhandled error event" for each one.
 */
export function createRedis(url: string, role: 'worker' | 'producer', logger?: Logger): Redis {
  const redis = new Redis(url, role === 'worker'
    ? { maxRetriesPerRequest: null, enableReadyCheck: true }
    : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 });
  if (logger !== undefined) {
    redis.on('error', (error: Error) => {
      logger.warn({ event: LogEvent.workerError, role, err: error }, 'Redis connection error; reconnecting');
    });
  }
  return redis;
}
