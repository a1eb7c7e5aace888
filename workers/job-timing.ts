import type { Job, Worker } from 'bullmq';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';

/** Times every finished job of a queue whose jobs name no platform into `sps_job_duration_seconds`. */
export function timeJobs(worker: Worker, metrics: SpsMetrics): void {
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    if (job?.processedOn === undefined || job.finishedOn === undefined) return;
    const seconds = (job.finishedOn - job.processedOn) / 1000;
    metrics.jobDuration.observe({ queue: worker.name, platform: 'none', outcome }, seconds);
  };
  worker.on('completed', (job) => { observe(job, 'completed'); });
  worker.on('failed', (job) => { observe(job, 'failed'); });
}
