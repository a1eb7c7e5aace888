import { jobs, type QueueName } from '../shared/queue/queues.ts';
import type { JobDefinition, JobHandler } from './job-handlers.ts';

/**
 * The handlers of each queue's jobs, checked against the job table: a job with no handler would
 * wait forever and a job with two would run whichever came first, so either refuses to start.
 */
export class JobRegistry {
  readonly #byQueue: ReadonlyMap<QueueName, ReadonlyMap<string, JobHandler>>;

  private constructor(byQueue: ReadonlyMap<QueueName, ReadonlyMap<string, JobHandler>>) {
    this.#byQueue = byQueue;
  }

  static of(handlers: readonly JobHandler[], known: readonly JobDefinition[] = Object.values(jobs)): JobRegistry {
    const problems: string[] = [];
    const byQueue = new Map<QueueName, Map<string, JobHandler>>();
    for (const handler of handlers) {
      const { queue, name } = handler.job;
      if (!known.some((job) => job.queue === queue && job.name === name))
        problems.push(`a handler for "${name}" on queue "${queue}", which is not in the job table`);
      const ofQueue = byQueue.get(queue) ?? new Map<string, JobHandler>();
      if (ofQueue.has(name)) problems.push(`two handlers for job "${name}" on queue "${queue}"`);
      ofQueue.set(name, handler);
      byQueue.set(queue, ofQueue);
    }
    for (const job of known) {
      if (byQueue.get(job.queue)?.has(job.name) !== true)
        problems.push(`no handler for job "${job.name}" on queue "${job.queue}"`);
    }
    if (problems.length > 0) throw new Error(`the workers' job registry is wrong: ${problems.join('; ')}`);
    return new JobRegistry(byQueue);
  }

  /** The queue's handlers by job name; empty for a queue with no jobs. */
  handlersOf(queue: QueueName): ReadonlyMap<string, JobHandler> {
    return this.#byQueue.get(queue) ?? new Map<string, JobHandler>();
  }
}
