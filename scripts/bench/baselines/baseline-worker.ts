import type { Worker } from 'bullmq';
import { z } from 'zod';

/** What a baseline worker process is started with: its queue, concurrency and the stand-in it posts to. */
export const baselineWorkerEnv = z.object({
  REDIS_URL: z.string().regex(/^redis:\/\//),
  QUEUE_PREFIX: z.string().min(1),
  BARE_QUEUE: z.string().min(1),
  PUBLISH_CONCURRENCY: z.coerce.number().int().positive(),
  SIMULATOR_URL: z.url(),
  SIMULATOR_TOKEN: z.string().min(1),
});

/**
 * What every baseline worker process does around its processor: says its errors and failed jobs
 * on stderr, prints `<name> running` once ready (the bench waits for that line), and on SIGTERM
 * closes the worker and whatever else `closing` names, then exits.
 */
export async function runBaselineWorker(
  name: string,
  worker: Worker,
  closing: () => Promise<unknown> = () => Promise.resolve(),
): Promise<void> {
  worker.on('error', (error) => { process.stderr.write(`${name}: ${error.message}\n`); });
  worker.on('failed', (job, error) => {
    process.stderr.write(`${name}: job ${job?.id ?? '?'} failed: ${error.message}\n`);
  });
  await worker.waitUntilReady();
  process.stdout.write(`${name} running (concurrency ${worker.concurrency})\n`);
  process.once('SIGTERM', () => {
    void Promise.all([worker.close(), closing()]).then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`${name}: closing failed: ${String(error)}\n`);
      process.exit(1);
    });
  });
}
