// The baseline of publishing (issues 16 and 17): a bare BullMQ worker with SPS's concurrency that
// makes one HTTP POST per job to the same Mastodon stand-in. No database, no adapter, no
// notification: what any worker delivering a delayed job to the platform must spend at least.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { baselineWorkerEnv, runBaselineWorker } from './baseline-worker.ts';

const env = baselineWorkerEnv.parse(process.env);

const jobData = z.object({ text: z.string().min(1) });

const worker = new Worker(env.BARE_QUEUE, async (job) => {
  const { text } = jobData.parse(job.data);
  const response = await fetch(`${env.SIMULATOR_URL}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.SIMULATOR_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: text }),
  });
  const answer = await response.text();
  if (!response.ok) throw new Error(`the simulator answered ${response.status}: ${answer.slice(0, 200)}`);
}, {
  connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }),
  prefix: env.QUEUE_PREFIX,
  concurrency: env.PUBLISH_CONCURRENCY,
});
await runBaselineWorker('bare publish worker', worker);
