import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { disconnectSafe } from './disconnect-safe-cluster.ts';
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

  it('turns the cluster\'s ready check off for every role (its failure lost the connect() BullMQ awaits)', () => {
    const settings = loadConfig({ SECRETS_KEY: key, REDIS_CLUSTER_NODES: '10.0.0.5:7000' });
    expect(clusterOptionsFor(settings, 'worker').enableReadyCheck).toBe(false);
    expect(clusterOptionsFor(settings, 'producer').enableReadyCheck).toBe(false);
  });

  it('keeps a cluster\'s disconnect safe in its duplicates, where BullMQ makes its blocking connections', () => {
    // lazyConnect: nothing is connected, only the listeners are looked at.
    const cluster = disconnectSafe(new Cluster(['10.0.0.5:7000'], { lazyConnect: true }));
    const duplicate = cluster.duplicate();
    const ofDuplicate = duplicate.duplicate([], { redisOptions: { connectionName: 'blocking' } });
    for (const each of [cluster, duplicate, ofDuplicate]) expect(each.listenerCount('+node')).toBe(1);
    expect(ofDuplicate.options.redisOptions?.connectionName).toBe('blocking');
    expect(ofDuplicate.options.lazyConnect).toBe(true);
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
