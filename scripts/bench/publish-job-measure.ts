import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Queue } from 'bullmq';
import { publishJobId } from '../../shared/queue/queues.ts';
import type { MastodonSimulator } from '../../test/simulators/mastodon/mastodon-simulator.ts';
import type { BenchStack } from './bench-stack.ts';
import type { BenchTenant } from './bench-tenant.ts';
import { createDuePost } from './due-posts.ts';
import { percentile } from './results-table.ts';
import { StatusReceipts, statusText } from './status-receipts.ts';

export interface PublishJobSettings {
  /** Jobs per tenant (and for the baseline). */
  jobs: number;
  /**
   * Due times this far apart over all tenants together (one tenant's jobs are `tenants` times as
   * far apart), so the machine sees the same job rate however many tenants are timed, and jobs
   * do not wait for each other.
   */
  intervalMs: number;
  leadMs: number;
  graceMs: number;
}

export interface PublishJobResult {
  expected: number;
  /** Statuses the simulator received. */
  published: number;
  /** Jobs that finished and could be timed. */
  timed: number;
  medianMs: number;
  p90Ms: number;
}

/**
 * BullMQ's own timing of each job (finishedOn - processedOn): the processor's time, queue wait
 * excluded. A job may still be writing its results after the simulator answered: wait for them.
 */
async function jobDurations(queue: Queue, jobIds: readonly string[], deadline: number): Promise<number[]> {
  const duration = (job: Job | undefined): number[] =>
    (job?.finishedOn === undefined || job.processedOn === undefined ? [] : [job.finishedOn - job.processedOn]);
  const timed = async (): Promise<number[]> =>
    (await Promise.all(jobIds.map((id) => queue.getJob(id)))).flatMap(duration);
  let durations = await timed();
  while (durations.length < jobIds.length && Date.now() < deadline) {
    await sleep(200);
    durations = await timed();
  }
  return durations;
}

function summary(expected: number, published: number, durations: number[]): PublishJobResult {
  const [medianMs, p90Ms] = [percentile(durations, 50), percentile(durations, 90)];
  return { expected, published, timed: durations.length, medianMs, p90Ms };
}

/**
 * SPS: single-part posts created with the api's own `createPosts` in each tenant's database, due
 * one every `intervalMs` in turn (tenant 1, tenant 2, tenant 1...), so each tenant's workers
 * process publishes in the same minute as the others; each job is timed by BullMQ.
 */
export async function measureSpsPublishJobs(
  tenants: readonly BenchTenant[],
  simulator: MastodonSimulator,
  settings: PublishJobSettings,
  tag: string,
): Promise<PublishJobResult[]> {
  const receipts = new StatusReceipts(simulator, tag);
  const total = tenants.length * settings.jobs;
  // Creating takes a few ms per post; 30 ms each leaves room on a busy machine.
  const start = Date.now() + settings.leadMs + total * 30;
  const created: string[][] = tenants.map(() => []);
  for (let index = 0; index < settings.jobs; index += 1) {
    for (const [number, tenant] of tenants.entries()) {
      const due = start + (index * tenants.length + number) * settings.intervalMs;
      const text = statusText(tag, number * settings.jobs + index);
      created[number]?.push(await createDuePost(tenant, tenant.channelId, due, text));
    }
  }
  const headroomMs = start - Date.now();
  if (headroomMs < 0) throw new Error(`creating the posts ran ${-headroomMs} ms past the first due time; raise leadMs`);
  await receipts.waitFor(total, start + total * settings.intervalMs + settings.graceMs);
  receipts.stop();
  const deadline = Date.now() + settings.graceMs;
  return Promise.all(tenants.map(async (tenant, number) => {
    const published = [...receipts.receivedAt.keys()].filter((index) => Math.floor(index / settings.jobs) === number);
    const durations = await jobDurations(tenant.publishQueue, (created[number] ?? []).map(publishJobId), deadline);
    return summary(settings.jobs, published.length, durations);
  }));
}

/** The baseline: the same number of bare jobs on the same spacing, each one HTTP POST to the simulator. */
export async function measureBarePublishJobs(
  stack: BenchStack,
  settings: PublishJobSettings,
  tag: string,
): Promise<PublishJobResult> {
  const receipts = new StatusReceipts(stack.simulator, tag);
  const now = Date.now();
  const jobs = await stack.bareQueues.publish.addBulk(Array.from({ length: settings.jobs }, (_, index) => ({
    name: 'publish', data: { text: statusText(tag, index) },
    opts: { delay: settings.leadMs + index * settings.intervalMs },
  })));
  await receipts.waitFor(settings.jobs, now + settings.leadMs + settings.jobs * settings.intervalMs + settings.graceMs);
  receipts.stop();
  const jobIds = jobs.map((job) => job.id ?? '');
  const durations = await jobDurations(stack.bareQueues.publish, jobIds, Date.now() + settings.graceMs);
  return summary(settings.jobs, receipts.receivedAt.size, durations);
}
