import { createDuePost, inParallel } from '../due-posts.ts';
import { percentile } from '../results-table.ts';
import { StatusReceipts, statusText } from '../status-receipts.ts';
import { clearScaleWork, type ScaleWorld } from './scale-world.ts';

/** One post to create: on which organization's channel, due when. */
export interface DuePlan {
  organization: number;
  channel: number;
  due: number;
}

/** How a set of due posts went out: how late each was, and when the last one was. */
export interface DueOutcome {
  expected: number;
  published: number;
  /** Statuses received twice: posts published twice. */
  repeats: number;
  /** From the first due time to the last status received. */
  drainMs: number;
  p50Ms: number;
  p99Ms: number;
  /** Time left between the last creation and the first due time; negative if creating took too long. */
  headroomMs: number;
}

/** Posts created at once; creating faster than this only slows FerretDB. */
const creationConcurrency = 20;

/** A post due this far ahead is never published during the run. */
const farFuture = Date.parse('2099-01-01T00:00:00.000Z');

/** The plan's posts in creation order, `dueAt` giving each its due time from a start not yet known. */
export type PlanShape = (index: number, start: number) => DuePlan;

async function createPlanned(world: ScaleWorld, plans: readonly DuePlan[], tag: string): Promise<void> {
  await inParallel(plans.length, creationConcurrency, async (index) => {
    const plan = plans[index];
    const organization = plan === undefined ? undefined : world.organizations[plan.organization];
    const channelId = organization?.channelIds[plan?.channel ?? 0];
    if (plan === undefined || organization === undefined || channelId === undefined) {
      throw new Error(`post ${index} names a channel the scale world does not have`);
    }
    await createDuePost(organization, channelId, plan.due, statusText(tag, index));
  });
}

/**
 * How long creating `count` posts takes, from a sample of 100 created the same way, due far
 * ahead and taken back out: the due times must be known before the posts are created.
 */
async function estimateCreationMs(world: ScaleWorld, count: number, shape: PlanShape): Promise<number> {
  const sample = Math.min(count, 100);
  const plans = Array.from({ length: sample }, (_, index) => ({ ...shape(index, 0), due: farFuture }));
  const startedAt = performance.now();
  await createPlanned(world, plans, 'sample');
  const perPostMs = (performance.now() - startedAt) / sample;
  await clearScaleWork(world);
  return perPostMs * count;
}

/** Waits until every status of `dues` arrived, or `graceMs` after the last due time. */
export async function receiveAll(receipts: StatusReceipts, dues: readonly number[], graceMs: number): Promise<void> {
  await receipts.waitFor(dues.length, Math.max(...dues) + graceMs);
  receipts.stop();
}

/** Lateness and drain of the received statuses whose index `counts` (all unless told). */
export function outcomeOf(
  receipts: StatusReceipts,
  dues: readonly number[],
  headroomMs: number,
  counts: (index: number) => boolean = () => true,
): DueOutcome {
  const indexes = dues.map((_, index) => index).filter(counts);
  const arrivals = indexes.flatMap((index) => {
    const at = receipts.receivedAt.get(index);
    return at === undefined ? [] : [{ at, lateMs: at - (dues[index] ?? Number.NaN) }];
  });
  const lateness = arrivals.map((arrival) => arrival.lateMs);
  const lastAt = Math.max(...arrivals.map((arrival) => arrival.at));
  const firstDue = Math.min(...indexes.map((index) => dues[index] ?? Number.NaN));
  return {
    expected: indexes.length, published: arrivals.length, repeats: receipts.repeats,
    drainMs: lastAt - firstDue, p50Ms: percentile(lateness, 50), p99Ms: percentile(lateness, 99), headroomMs,
  };
}

/**
 * SPS: `count` real posts made with the api's `createPosts`, as `shape` places them, the first
 * due `leadMs` after creating them is expected to end; published by whatever workers serve the
 * scale world's queue. Returns the statuses' receipts and the due times, for `outcomeOf`.
 */
export async function createSpsPosts(
  world: ScaleWorld,
  count: number,
  shape: PlanShape,
  options: { leadMs: number; tag: string },
): Promise<{ receipts: StatusReceipts; dues: number[]; headroomMs: number }> {
  const creationMs = 1.5 * await estimateCreationMs(world, count, shape);
  const start = Date.now() + creationMs + options.leadMs;
  const plans = Array.from({ length: count }, (_, index) => shape(index, start));
  const receipts = new StatusReceipts(world.simulator, options.tag);
  await createPlanned(world, plans, options.tag);
  const dues = plans.map((plan) => plan.due);
  return { receipts, dues, headroomMs: Math.min(...dues) - Date.now() };
}

/** The baseline: bare BullMQ jobs with the same due times, one HTTP POST each to the same stand-in. */
export async function addBareJobs(
  world: ScaleWorld,
  dues: readonly number[],
  tag: string,
): Promise<StatusReceipts> {
  const receipts = new StatusReceipts(world.simulator, tag);
  const now = Date.now();
  await world.bareQueue.addBulk(dues.map((due, index) => ({
    name: 'publish', data: { text: statusText(tag, index) },
    opts: { delay: Math.max(0, due - now), removeOnComplete: true },
  })));
  return receipts;
}
