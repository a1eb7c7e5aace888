import { setTimeout as sleep } from 'node:timers/promises';
import { RedisConnection as BullConnection } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { createRedis, type RedisSettings } from '../../shared/queue/redis.ts';
import { startRedisCluster, type LocalRedisCluster } from '../support/redis-cluster.ts';
import { waitFor } from '../support/stack.ts';

const tag = '{sps-reconnect}';

/** What `promise` came to within `ms`: a hang is an answer here, not a test timeout. */
function within(promise: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => { timer = setTimeout(() => { resolve('pending'); }, ms); });
  const settled = promise.then(() => 'resolved', (error: unknown) => `rejected: ${String(error)}`);
  return Promise.race([settled, deadline]).finally(() => { clearTimeout(timer); });
}

/** A Lua script that keeps its node busy (answering no one) for `ms`. */
const busyFor = (ms: number): string => 'local t = redis.call("TIME"); local s = t[1] * 1000000 + t[2]; '
  + 'repeat local n = redis.call("TIME") until n[1] * 1000000 + n[2] - s > ' + String(ms * 1_000) + ' return 1';

/**
 * The two ways the cluster failover test found a worker's blocking connection stuck for good, each
 * made certain. BullMQ builds that connection by duplicating the one SPS hands it (createRedis) in a
 * RedisConnection of its own, and when a failover cuts its BZPOPMIN off it disconnects it (waiting
 * for 'end') and reconnects it (waiting for the cluster's connect()). A wait that never ends leaves
 * the worker taking no more jobs, and its close() never returns. The connections here are built the
 * same way.
 */
describe('a worker\'s blocking cluster connection through a failover', () => {
  let cluster: LocalRedisCluster;
  let settings: RedisSettings;
  const opened: Cluster[] = [];
  /** createRedis's cluster and BullMQ's blocking connection over a duplicate of it, ready. */
  const blockingConnection = async (logger?: ReturnType<typeof createLogger>) => {
    const connection = createRedis(settings, 'worker', logger);
    if (!(connection instanceof Cluster)) throw new Error('createRedis made no cluster of REDIS_CLUSTER_NODES');
    const duplicate = connection.duplicate();
    opened.push(connection, duplicate);
    const blocking = new BullConnection(duplicate, { shared: false, blocking: true });
    await blocking.client;
    return { duplicate, blocking };
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
    settings = loadConfig({ SECRETS_KEY: 'a'.repeat(64), REDIS_CLUSTER_NODES: cluster.seeds });
  });
  afterAll(async () => {
    for (const connection of opened) connection.disconnect();
    await cluster.dispose();
  });

  it('ends a disconnect that a MOVED answer raced, and logs the repair', async () => {
    const lines: string[] = [];
    const logger = createLogger({ name: 'test', level: 'warn', destination: { write: (line: string) => {
      lines.push(line);
    } } });
    const { duplicate, blocking } = await blockingConnection(logger);
    // Every node's connection open: one never opened would end at once and let the pool drain.
    await Promise.all(duplicate.nodes().map((node) => node.ping()));
    const key = `${tag}:moved`;
    const owner = await cluster.primaryOf(tag);
    const stale = duplicate.nodes('master').map((node) => node.options.port).find((port) => port !== owner);
    // A slot map gone stale, as in a failover: the command goes to a primary that answers MOVED.
    duplicate.slots[await duplicate.cluster('KEYSLOT', key)] = [`127.0.0.1:${String(stale)}`];
    // That primary answers within 400 ms, the other nodes close their connections only after 2 s:
    // the MOVED answer comes while the cluster is disconnecting, as it did under load.
    const side = cluster.ports.map((port) => createRedis(`redis://127.0.0.1:${String(port)}`, 'worker'));
    const busy = side.map((connection, index) =>
      connection.eval(busyFor(cluster.ports[index] === stale ? 400 : 2_000), 0));
    await sleep(200);

    const answered = duplicate.get(key);
    const disconnected = blocking.disconnect(true);
    expect(await within(disconnected, 5_000)).toBe('resolved');
    // The command the disconnect overtook is refused, not left waiting.
    expect(await within(answered, 1_000)).toMatch(/^rejected/);
    expect(lines.filter((line) => line.includes('MOVED answer while disconnecting'))).toHaveLength(1);
    await Promise.all(busy);
    await Promise.all(side.map((connection) => connection.quit()));
  });

  it('finishes reconnecting while a primary is down, serves its slot once the replica is promoted, and closes', {
    timeout: 60_000,
  }, async () => {
    const { blocking } = await blockingConnection();
    const primary = await cluster.primaryOf(tag);
    await cluster.kill(primary);
    // The other nodes mark it failed after cluster-node-timeout; its replica waits at least 500 ms more.
    await waitFor(async () => {
      const dead = (await cluster.nodes()).find((node) => node.port === primary);
      return dead?.failed === true ? true : undefined;
    }, { what: `the cluster to mark ${String(primary)} failed`, timeoutMs: 15_000 });

    // Reopened while CLUSTER INFO says cluster_state:fail: with ioredis's ready check on, the
    // cluster reconnected by itself but the connect() BullMQ awaits here was never settled.
    await blocking.disconnect(true);
    expect(await within(blocking.reconnect(), 10_000)).toBe('resolved');

    await cluster.promotedAfter(primary);
    const client = await blocking.client;
    await client.set(`${tag}:probe`, 'after the failover');
    expect(await client.get(`${tag}:probe`)).toBe('after the failover');
    expect(await within(blocking.close(), 5_000)).toBe('resolved');
  });
});
