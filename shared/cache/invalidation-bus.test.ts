import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../logging/logger.ts';
import { InvalidatedCache } from './invalidated-cache.ts';
import { InvalidationBus, InvalidationPublisher } from './invalidation-bus.ts';

const waitUntil = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('InvalidationBus over Redis', () => {
  const prefix = `sps-test-bus-${randomBytes(4).toString('hex')}`;
  const topic = 'organization:aaaaaaaaaaaaaaaaaaaaaaaa' as const;
  let admin: Redis;
  let subscriber: Redis;
  let bus: InvalidationBus;
  let cache: InvalidatedCache<string>;

  beforeAll(async () => {
    admin = new Redis(inject('redisUrl'));
    // Named, so the test can cut this connection alone.
    subscriber = new Redis(inject('redisUrl'), { connectionName: prefix });
    const logger = createLogger({ name: 'test', level: 'silent' });
    bus = new InvalidationBus({ publisher: admin, subscriber, prefix, logger });
    cache = new InvalidatedCache(bus, { ttlMs: 60_000, maxEntries: 10 });
    await bus.start();
  });
  afterAll(async () => {
    await bus.close();
    admin.disconnect();
  });

  const load = (value: string) => () => Promise.resolve({ value, topics: [topic] });

  it('drops an entry when another process publishes its topic', async () => {
    await cache.get('k', load('first'));
    expect(await cache.get('k', load('second'))).toBe('first');
    await new InvalidationPublisher(admin, prefix).changed([topic]);
    await waitUntil(() => cache.size === 0, 'the message');
    expect(await cache.get('k', load('third'))).toBe('third');
  });

  it('a lost subscription empties the cache and reads through until it is made again', async () => {
    await cache.get('k', load('before'));
    expect(cache.size).toBe(1);
    // Killed by Redis (as a restart or a network cut would): messages sent meanwhile are missed.
    const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const id = clients.split('\n').find((line) => line.includes(` name=${prefix} `))?.match(/id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    await admin.client('KILL', 'ID', id ?? '');
    await waitUntil(() => !bus.live, 'the bus to notice');
    expect(cache.size).toBe(0);
    expect(await cache.get('k', load('while down'))).toBe('while down');
    expect(cache.size).toBe(0);
    await waitUntil(() => bus.live, 'the subscription again');
    await cache.get('k', load('after'));
    expect(await cache.get('k', load('not read'))).toBe('after');
  });
});
