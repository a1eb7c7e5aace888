import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { queuePrefixOf } from './queue-prefix.ts';
import { clusterOptionsFor } from './redis.ts';

const key = 'a'.repeat(64);

describe('Redis connections by settings', () => {
  it('keeps QUEUE_PREFIX as BullMQ\'s prefix on one Redis, and hash-tags it on a cluster', () => {
    expect(queuePrefixOf(loadConfig({ SECRETS_KEY: key, QUEUE_PREFIX: 'acme' }))).toBe('acme');
    const onCluster = loadConfig({ SECRETS_KEY: key, QUEUE_PREFIX: 'acme', REDIS_CLUSTER_NODES: '10.0.0.5:7000' });
    expect(queuePrefixOf(onCluster)).toBe('{acme}');
  });

  it('gives cluster workers BullMQ\'s never-give-up commands and producers a fail-fast cluster', () => {
    const settings = loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: '10.0.0.5:7000' });
    const worker = clusterOptionsFor(settings, 'worker');
    expect(worker.redisOptions?.maxRetriesPerRequest).toBeNull();
    expect(worker.enableOfflineQueue).toBeUndefined();
    const producer = clusterOptionsFor(settings, 'producer');
    expect(producer.enableOfflineQueue).toBe(false);
    expect(producer.redisOptions?.maxRetriesPerRequest).toBe(1);
  });

  it('takes every node\'s user, password and TLS from REDIS_URL', () => {
    const settings = loadConfig({
      SECRETS_KEY: key, REDIS_URL: 'rediss://sps:p%40ss@ignored.example:6380', REDIS_CLUSTER_NODES: '10.0.0.5:7000',
    });
    expect(clusterOptionsFor(settings, 'worker').redisOptions)
      .toMatchObject({ username: 'sps', password: 'p@ss', tls: {} });
    const plain = clusterOptionsFor(loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: '10.0.0.5:7000' }), 'producer');
    expect(plain.redisOptions).not.toHaveProperty('password');
    expect(plain.redisOptions).not.toHaveProperty('tls');
  });
});
