import { Gauge, type Registry } from 'prom-client';
import type { Queue } from 'bullmq';

const states = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * `sps_queue_jobs{queue,state}`, read from Redis when Prometheus scrapes (one round trip per
 * queue), so the figure is never older than the scrape and costs nothing between scrapes.
 */
export function registerQueueDepth(registry: Registry, queues: readonly Queue[]): void {
  new Gauge({
    name: 'sps_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed) at the time of the scrape',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...states)));
      queues.forEach((queue, index) => {
        for (const state of states) this.set({ queue: queue.name, state }, counts[index]?.[state] ?? 0);
      });
    },
  });
}
