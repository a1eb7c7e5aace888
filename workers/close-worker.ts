import type { Worker } from 'bullmq';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';

/** Waits for a worker's running jobs up to `timeoutMs`, then closes it at once (the stalled check hands them on). */
export async function closeWorker(worker: Worker, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => { resolve('timeout'); }, timeoutMs);
  });
  const result = await Promise.race([worker.close().then(() => 'closed' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') {
    const fields = { event: LogEvent.serviceStopping, queue: worker.name, timeoutMs };
    logger.warn(fields, 'jobs running at the deadline; handing them back');
    await worker.close(true);
  }
}
