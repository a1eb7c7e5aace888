import type { Config } from '../config/config.ts';

/**
 * BullMQ's key prefix for every queue of the deployment. On one Redis it is QUEUE_PREFIX as
 * written, so the keys of a running deployment stay where they are. On a Redis Cluster it is
 * wrapped in a hash tag, `{<QUEUE_PREFIX>}`: BullMQ's scripts touch many keys of a queue at once,
 * and a cluster refuses a script whose keys live in different slots (CROSSSLOT). One tag for all
 * queues puts all of BullMQ's keys on one primary; per-queue tags would spread them, but jobs of
 * one deployment would then be under as many prefixes as queues, and Bull Board, the tests and
 * the operators' key patterns would all need to know them. SPS's other keys (rate limits,
 * idempotency, locks, throttles) keep QUEUE_PREFIX without a tag and spread over the cluster.
 */
export function queuePrefixOf(config: Pick<Config, 'QUEUE_PREFIX' | 'REDIS_CLUSTER_NODES'>): string {
  return config.REDIS_CLUSTER_NODES.length === 0 ? config.QUEUE_PREFIX : `{${config.QUEUE_PREFIX}}`;
}
