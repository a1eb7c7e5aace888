import { describe, expect, it } from 'vitest';
import { jobs, QueueName } from '../shared/queue/queues.ts';
import { jobHandlers, type JobHandler } from './job-handlers.ts';
import { JobRegistry } from './job-registry.ts';

const handlerFor = (job: JobHandler['job']): JobHandler => ({ job, create: () => () => Promise.resolve(job.name) });

describe('the job registry', () => {
  it('holds one handler for every job of the queue table', () => {
    const registry = JobRegistry.of(jobHandlers);
    for (const job of Object.values(jobs)) expect(registry.handlersOf(job.queue).get(job.name)?.job).toBe(job);
    const maintenance = [...registry.handlersOf(QueueName.maintenance).keys()].sort();
    expect(maintenance).toEqual([
      'clean-expired', 'refresh-tokens', 'schedule-analytics', 'sweep-publications', 'sweep-removals',
    ]);
  });

  it('refuses to start when a job has no handler, naming the job and its queue', () => {
    const withoutSweep = jobHandlers.filter((handler) => handler.job !== jobs.sweepPublications);
    expect(() => JobRegistry.of(withoutSweep))
      .toThrow('no handler for job "sweep-publications" on queue "maintenance"');
  });

  it('refuses to start when a job has two handlers', () => {
    const doubled = [...jobHandlers, handlerFor(jobs.deliverWebhook)];
    expect(() => JobRegistry.of(doubled)).toThrow('two handlers for job "deliver-webhook" on queue "webhook"');
  });

  it('refuses a handler for a job the queue table does not list', () => {
    const known = Object.values(jobs).filter((job) => job !== jobs.generateVideo);
    expect(() => JobRegistry.of(jobHandlers, known))
      .toThrow('a handler for "generate-video" on queue "video", which is not in the job table');
  });
});
