import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Config } from '../config/config.ts';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';
import { disconnectSafe } from './disconnect-safe-cluster.ts';

/**
 * A connection to the deployment's Redis: one server (REDIS_URL) or a Redis Cluster
 * (REDIS_CLUSTER_NODES). Both take the same commands, events, scripts and pub/sub, and BullMQ
 * takes either; only keys that one script or MULTI touches together must share a hash tag.
 */
export type RedisConnection = Redis | Cluster;

/** What a connection needs from the configuration. */
export type RedisSettings = Pick<Config, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>;

export type RedisRole = 'worker' | 'producer';

/**
 * Workers block on Redis and must never give up on a command (BullMQ requires
 * `maxRetriesPerRequest: null`); producers fail fast instead, so a request is answered with 503
 * rather than hanging while Redis is away.
 */
const serverOptions: Record<RedisRole, RedisOptions> = {
  worker: { maxRetriesPerRequest: null, enableReadyCheck: true },
  producer: { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 },
};

/**
 * The same roles on a cluster. BullMQ reads `redisOptions.maxRetriesPerRequest` of a Cluster, so
 * the worker's null goes there; failing fast is the cluster's offline queue being off (a command
 * sent while no node answers is refused at once). A command meeting a primary that just died is
 * retried by ioredis every `retryDelayOnFailover` (100 ms) up to `maxRedirections` (16) times
 * while the slot map is read again, so a failover within about 1.6 s costs a caller nothing.
 * `slotsRefreshInterval` lets a connection that sends nothing (the cache subscriber) notice a
 * failover too.
 *
 * The cluster's ready check is off. With it, a cluster that (re)connects while CLUSTER INFO says
 * `cluster_state:fail` (a primary just died, its replica not yet promoted) reconnects by itself, but
 * the promise its `connect()` returned is never settled (ioredis #709, still so in 6.0.0). BullMQ
 * awaits that promise, unbounded, when it reopens a worker's blocking connection after its
 * BZPOPMIN was cut off; the worker then took no more jobs and its close() never returned
 * (test/fault/redis-cluster-failover.test.ts, test/fault/cluster-reconnect.test.ts). Without the
 * check a cluster is ready once it has the slot map, and a command meeting the failed state is
 * retried on CLUSTERDOWN every `retryDelayOnClusterDown`, as on a connection that was up already.
 */
export function clusterOptionsFor(settings: RedisSettings, role: RedisRole): ClusterOptions {
  const url = new URL(settings.REDIS_URL);
  // The cluster's nodes share REDIS_URL's credentials and TLS; its host and database are not used.
  const credentials: ClusterOptions['redisOptions'] = {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const everyRole = { slotsRefreshInterval: 5_000, enableReadyCheck: false };
  return role === 'worker'
    ? { ...everyRole, redisOptions: { ...credentials, maxRetriesPerRequest: null } }
    : {
      ...everyRole,
      enableOfflineQueue: false,
      redisOptions: { ...credentials, maxRetriesPerRequest: 1, connectTimeout: 5_000 },
    };
}

/**
 * Every Redis connection SPS makes: one server, or a cluster when REDIS_CLUSTER_NODES names seeds.
 * The services pass their configuration; a bare URL is one server at that address whatever the
 * configuration says (tests and tools that name a server of their own).
 * Connection errors while Redis is away are logged (once per reconnection attempt) when a logger
 * is given; without any listener ioredis would print "Unhandled error event" for each one.
 * A cluster's disconnect always finishes, in its duplicates too (disconnect-safe-cluster.ts).
 */
export function createRedis(target: string, role: RedisRole, logger?: Logger): Redis;
export function createRedis(target: RedisSettings, role: RedisRole, logger?: Logger): RedisConnection;
export function createRedis(target: RedisSettings | string, role: RedisRole, logger?: Logger): RedisConnection {
  const settings: RedisSettings = typeof target === 'string' ? { REDIS_URL: target, REDIS_CLUSTER_NODES: [] } : target;
  const redis: RedisConnection = settings.REDIS_CLUSTER_NODES.length === 0
    ? new Redis(settings.REDIS_URL, serverOptions[role])
    : disconnectSafe(new Cluster([...settings.REDIS_CLUSTER_NODES], clusterOptionsFor(settings, role)), logger);
  if (logger !== undefined) {
    redis.on('error', (error: Error) => {
      logger.warn({ event: LogEvent.workerError, role, err: error }, 'Redis connection error; reconnecting');
    });
  }
  return redis;
}
