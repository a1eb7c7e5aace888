import type { Cluster, Redis } from 'ioredis';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';

/**
 * Makes an ioredis Cluster's disconnect() always finish, and its duplicates' too: BullMQ makes a
 * worker's blocking connection by duplicating the connection it is given, and that is the one it
 * disconnects and waits for. Returns `cluster`.
 *
 * The race it closes (ioredis 6.0.0): disconnect() empties the node pool, and the cluster ends when
 * the last of the old nodes' connections has closed ('drain'). A command sent before, answered
 * MOVED in the meantime (during a failover the nodes still point at the dead primary, or already at
 * the promoted one), puts its target back in the pool as a node that never connects while the
 * cluster is disconnecting: the pool never drains, the cluster stays 'disconnecting', and 'end'
 * never comes. BullMQ disconnects a worker's blocking connection, waiting for 'end', when the
 * failover cut its BZPOPMIN off; that worker then took no more jobs until it was closed
 * (test/fault/redis-cluster-failover.test.ts). Such a node is disconnected at once here, so the
 * pool drains as the disconnect meant; it is logged when a logger is given.
 */
export function disconnectSafe<C extends Cluster>(cluster: C, logger?: Logger): C {
  cluster.on('+node', (node: Redis) => {
    // Only while disconnecting: once the pool has drained the status is 'close' or later, and a
    // second drain would set the status back to 'close' behind the cluster's back.
    if (cluster.status !== 'disconnecting') return;
    logger?.warn(
      { event: LogEvent.workerError, node: `${String(node.options.host)}:${String(node.options.port)}` },
      'Redis Cluster node added by a MOVED answer while disconnecting; closing it so the disconnect completes',
    );
    node.disconnect();
  });
  const duplicate = cluster.duplicate.bind(cluster);
  cluster.duplicate = (seeds, options) => disconnectSafe(duplicate(seeds, options), logger);
  return cluster;
}
