import type { Worker } from 'bullmq';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';

/**
 * Waits for a worker's running jobs up to `timeoutMs`, then closes it at once (the stalled check
 * hands them on). The worker is paused for the wait, not closed: BullMQ's `close(true)` called
 * while a `close()` is under way returns that close, which waits for every job, so a deadline
 * reached during a close could force nothing and the process waited on a hung job until it was
 * killed.
 */
export async function closeWorker(worker: Worker, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => { resolve('timeout'); }, timeoutMs);
  });
  // Takes no new job, and resolves once the running ones are through.
  const result = await Promise.race([worker.pause().then(() => 'finished' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') {
    const fields = { event: LogEvent.serviceStopping, queue: worker.name, timeoutMs };
    logger.warn(fields, 'jobs running at the deadline; handing them back');
  }
  await worker.close(result === 'timeout');
}
