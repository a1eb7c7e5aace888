import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../api/dashboard/login-throttle.ts';
import { InvalidationBus, InvalidationPublisher, type CacheTopic } from '../../shared/cache/invalidation-bus.ts';
import { withRedisMutex } from '../../shared/queue/redis-mutex.ts';
import { createRedis, type RedisConnection } from '../../shared/queue/redis.ts';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { startRedisCluster, type LocalRedisCluster } from '../support/redis-cluster.ts';
import { SimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';

/**
 * SPS on a Redis Cluster of its own (3 primaries, 3 replicas): the api and the workers in this
 * process connect through REDIS_CLUSTER_NODES, BullMQ's keys are hash-tagged into one slot, and
 * every script of SPS's own (rate limit, idempotency, login throttle, lock) and the cache
 * invalidation pub/sub work there, where a script whose keys span slots is refused (CROSSSLOT).
 */
describe('SPS on a Redis Cluster', () => {
  const world = new SimulatedStack();
  let cluster: LocalRedisCluster;
  let org: { apiKey: string; channelId: string; organizationId: string };
  const connections: RedisConnection[] = [];
  /** A connection to the cluster as the services make it, once it is ready (a producer refuses commands before). */
  const clusterConnection = async (role: 'worker' | 'producer'): Promise<RedisConnection> => {
    const connection = createRedis(world.ctx.config, role, world.ctx.logger);
    connections.push(connection);
    if (connection.status !== 'ready') await new Promise((resolve) => { connection.once('ready', resolve); });
    return connection;
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
    await world.start({ overrides: { REDIS_CLUSTER_NODES: cluster.seeds } });
    org = await organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount('cluster'));
  });
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit()));
    await world.stop();
    await cluster.dispose();
  });

  it('publishes a thread made through the public API, its queue\'s keys in the slot of {QUEUE_PREFIX}', async () => {
    const postId = await publishNow(world.stack.baseUrl, org, ['Hello from a cluster', 'and a reply']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const texts = world.simulator.statuses.map((status) => status.text);
    expect(texts.filter((text) => text === 'Hello from a cluster' || text === 'and a reply')).toHaveLength(2);

    const prefix = queuePrefixOf(world.ctx.config);
    expect(prefix).toBe(`{${world.ctx.config.QUEUE_PREFIX}}`);
    expect(world.stack.publishQueue.opts.prefix).toBe(prefix);
    // Every BullMQ key lives on the primary of the tag's slot: one script can touch them all.
    const owner = await cluster.primaryOf(prefix);
    const onOwner = createRedis(`redis://127.0.0.1:${String(owner)}`, 'worker');
    try {
      const keys = await onOwner.keys(`${prefix}:publish:*`);
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      await onOwner.quit();
    }
  });

  it('answers a repeated idempotent POST with the first answer, each request counted by the rate limit', async () => {
    const body = {
      type: 'schedule',
      date: new Date(Date.now() + 3_600_000).toISOString(),
      posts: [{ integration: { id: org.channelId }, value: [{ content: 'Once on a cluster' }] }],
    };
    const send = () => api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST', body, headers: { 'Idempotency-Key': `cluster-${world.ctx.config.QUEUE_PREFIX}` },
    });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await world.ctx.db.posts.countDocuments({ content: 'Once on a cluster' })).toBe(1);
    const remaining = [first, again].map((answer) => Number(answer.headers.get('x-ratelimit-remaining')));
    expect(remaining[1]).toBe((remaining[0] ?? 0) - 1);
  });

  it('throttles wrong passwords with the three-counter script, and gives a right one back', async () => {
    const limits = {
      failuresPerPair: 2, failuresPerAddress: 20, failuresPerAccount: 100, failuresPerPairUnderAttack: 1,
      windowSeconds: 60, signUpsPerAddress: 1, signUpWindowSeconds: 60,
    };
    const { secrets, config } = world.ctx;
    const throttle = new LoginThrottle(await clusterConnection('producer'), secrets, config.QUEUE_PREFIX, limits);
    const wrong = () => throttle.checkPassword('owner@example.com', '203.0.113.7', () => Promise.resolve(null));
    const right = () => throttle.checkPassword('owner@example.com', '203.0.113.8', () => Promise.resolve('owner'));
    expect(await right()).toEqual({ allowed: true, user: 'owner' });
    expect(await wrong()).toEqual({ allowed: true, user: null });
    expect(await wrong()).toEqual({ allowed: true, user: null });
    expect(await wrong()).toMatchObject({ allowed: false });
    // Another address of the owner's is not held back by the stranger's failures.
    expect(await right()).toEqual({ allowed: true, user: 'owner' });
    expect(await throttle.admitSignUp('203.0.113.9')).toEqual({ allowed: true });
    expect(await throttle.admitSignUp('203.0.113.9')).toMatchObject({ allowed: false });
  });

  it('holds a lock across connections and tells cache changes to every subscriber', async () => {
    const key = `${world.ctx.config.QUEUE_PREFIX}:lock:cluster-test`;
    const order: string[] = [];
    const lockTimes = { holdMs: 5_000, waitMs: 5_000 };
    const hold = (name: string, connection: RedisConnection) => withRedisMutex(connection, key, lockTimes, async () => {
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      order.push(`${name} out`);
    });
    const [first, second] = await Promise.all([clusterConnection('producer'), clusterConnection('producer')]);
    await Promise.all([hold('a', first), hold('b', second)]);
    // One holder at a time: whoever came first was out before the other came in.
    const [firstIn, secondIn] = order[0] === 'a in' ? ['a', 'b'] : ['b', 'a'];
    expect(order).toEqual([`${firstIn} in`, `${firstIn} out`, `${secondIn} in`, `${secondIn} out`]);

    const heard: string[] = [];
    const bus = new InvalidationBus({
      publisher: await clusterConnection('producer'),
      subscriber: createRedis(world.ctx.config, 'worker', world.ctx.logger),
      prefix: world.ctx.config.QUEUE_PREFIX,
      logger: world.ctx.logger,
    });
    bus.listen({ invalidate: (topic) => { heard.push(topic); }, invalidateAll: () => undefined });
    await bus.start();
    try {
      expect(bus.live).toBe(true);
      const topic: CacheTopic = `channel:${org.channelId}`;
      const publisher = new InvalidationPublisher(await clusterConnection('producer'), world.ctx.config.QUEUE_PREFIX);
      await publisher.changed([topic]);
      await waitFor(() => (heard.includes(topic) ? true : undefined), { what: 'the change heard over the cluster' });
    } finally {
      await bus.close();
    }
  });
});
