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
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...states, 'prioritized')));
      queues.forEach((queue, index) => {
        const count = counts[index] ?? {};
        for (const state of states) {
          // BullMQ keeps jobs with a priority (publish jobs: their organization's turn, tenant-turns.ts)
          // apart from its plain waiting list; to an operator both are jobs waiting for a worker.
          const prioritized = state === 'waiting' ? (count.prioritized ?? 0) : 0;
          this.set({ queue: queue.name, state }, (count[state] ?? 0) + prioritized);
        }
      });
    },
  });
}
