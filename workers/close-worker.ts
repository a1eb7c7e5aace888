import type { Worker } from 'bullmq';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';

/**
 * Stops a worker taking jobs and waits for its running ones up to `timeoutMs`, then closes it:
 * gracefully when they finished, at once when they did not (their locks are no longer renewed, so
 * the stalled check of another worker hands them on). The wait is BullMQ's `pause`, not `close`: a
 * forced close after a pending graceful one only returns that one's promise (BullMQ 6.7), which
 * waits for the jobs, so the deadline would never cut the wait short.
 */
export async function closeWorker(worker: Worker, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => { resolve('timeout'); }, timeoutMs);
  });
  const result = await Promise.race([worker.pause().then(() => 'finished' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') {
    const fields = { event: LogEvent.serviceStopping, queue: worker.name, timeoutMs };
    logger.warn(fields, 'jobs running at the deadline; handing them back');
  }
  await worker.close(result === 'timeout');
}
