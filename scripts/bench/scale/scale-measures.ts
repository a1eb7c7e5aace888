import type { BenchStack } from '../bench-stack.ts';
import {
  addBareJobs, createSpsPosts, outcomeOf, receiveAll, type DueOutcome, type DuePlan, type PlanShape,
} from './due-burst.ts';
import { startBareWorker, startSpsWorkers } from './scale-processes.ts';
import { clearScaleWork, type ScaleWorld } from './scale-world.ts';

/** Every channel of the world, organization by organization, as a post's place in a plan. */
function everyChannel(world: ScaleWorld): Omit<DuePlan, 'due'>[] {
  return world.organizations.flatMap((organization, index) =>
    organization.channelIds.map((_, channel) => ({ organization: index, channel })));
}

/** `posts` posts due within one second, one per channel in turn across all organizations. */
function burstShape(world: ScaleWorld, posts: number): PlanShape {
  const channels = everyChannel(world);
  return (index, start) => {
    const place = channels[index % channels.length];
    if (place === undefined) throw new Error('the scale world has no channel');
    return { ...place, due: start + Math.floor((index * 1000) / posts) };
  };
}

/** First due this long after the posts or jobs are in: starting processes and reading them is not measured. */
const leadMs = 3_000;

export interface DrainComparison {
  sps: DueOutcome;
  bare: DueOutcome;
}

/**
 * A burst on a platform answering in `platformMs`: SPS's workers (one process, `settings`) and
 * then the bare worker, each on its own, draining the same shape of posts to the same stand-in.
 */
export async function measureBurstDrain(
  stack: BenchStack,
  world: ScaleWorld,
  burst: { posts: number; platformMs: number; tag: string },
): Promise<DrainComparison> {
  world.simulator.responseDelayMs = burst.platformMs;
  const shape = burstShape(world, burst.posts);
  const graceMs = 60_000 + (burst.posts * burst.platformMs) / 20;
  const sps = await measureSpsDrain(stack, world, { ...burst, shape, graceMs, processes: 1 });
  const bareWorker = await startBareWorker(stack, world);
  try {
    const dues = Array.from({ length: burst.posts }, (_, index) => shape(index, Date.now() + leadMs).due);
    const receipts = await addBareJobs(world, dues, `${burst.tag}-bare`);
    await receiveAll(receipts, dues, graceMs);
    return { sps, bare: outcomeOf(receipts, dues, leadMs) };
  } finally {
    await bareWorker.stop();
    await clearScaleWork(world);
  }
}

/** SPS alone: `processes` workers processes draining `posts` posts of `shape`. */
export async function measureSpsDrain(
  stack: BenchStack,
  world: ScaleWorld,
  drain: { posts: number; shape: PlanShape; graceMs: number; processes: number; tag: string },
  settings: NodeJS.ProcessEnv = {},
): Promise<DueOutcome> {
  const workers = await startSpsWorkers(stack, world, drain.processes, settings);
  try {
    const created = await createSpsPosts(world, drain.posts, drain.shape, { leadMs, tag: drain.tag });
    await receiveAll(created.receipts, created.dues, drain.graceMs);
    return outcomeOf(created.receipts, created.dues, created.headroomMs);
  } finally {
    await workers.stop();
    await clearScaleWork(world);
  }
}

export interface FairnessOutcome {
  /** The other organizations' single posts. */
  others: DueOutcome;
  /** The big organization's backlog. */
  backlog: DueOutcome;
}

/**
 * The first organization has `backlog` posts on its channels (or, `oneAccount`, all on its first
 * channel, one account of the platform), all due in one second; each other organization has one
 * post, due one after the other over the `spreadMs` after it. How late the single posts are while
 * the backlog drains, on a platform answering in `platformMs`.
 */
export async function measureFairness(
  stack: BenchStack,
  world: ScaleWorld,
  fairness: { backlog: number; spreadMs: number; platformMs: number; tag: string; oneAccount?: boolean },
): Promise<FairnessOutcome> {
  world.simulator.responseDelayMs = fairness.platformMs;
  const [busy, ...others] = world.organizations;
  if (busy === undefined || others.length === 0) throw new Error('fairness needs two organizations or more');
  const channels = fairness.oneAccount === true ? 1 : busy.channelIds.length;
  const shape: PlanShape = (index, start) => {
    if (index < fairness.backlog) {
      return { organization: 0, channel: index % channels, due: start + Math.floor((index * 1000) / fairness.backlog) };
    }
    const other = index - fairness.backlog;
    return { organization: other + 1, channel: 0, due: start + 1000 + (other * fairness.spreadMs) / others.length };
  };
  const workers = await startSpsWorkers(stack, world, 1);
  try {
    const count = fairness.backlog + others.length;
    const created = await createSpsPosts(world, count, shape, { leadMs, tag: fairness.tag });
    await receiveAll(created.receipts, created.dues, 120_000 + fairness.backlog * fairness.platformMs / 50);
    const { receipts, dues, headroomMs } = created;
    return {
      others: outcomeOf(receipts, dues, headroomMs, (index) => index >= fairness.backlog),
      backlog: outcomeOf(receipts, dues, headroomMs, (index) => index < fairness.backlog),
    };
  } finally {
    await workers.stop();
    await clearScaleWork(world);
  }
}

/** Drain of the same burst with each count of workers processes, each bounded to `callsPerProcess` calls. */
export async function measureProcessScaling(
  stack: BenchStack,
  world: ScaleWorld,
  scaling: { posts: number; platformMs: number; counts: readonly number[]; callsPerProcess: number; tag: string },
): Promise<Map<number, DueOutcome>> {
  world.simulator.responseDelayMs = scaling.platformMs;
  const shape = burstShape(world, scaling.posts);
  const graceMs = 60_000 + (scaling.posts * scaling.platformMs) / scaling.callsPerProcess;
  const outcomes = new Map<number, DueOutcome>();
  for (const processes of scaling.counts) {
    const drain = { posts: scaling.posts, shape, graceMs, processes, tag: `${scaling.tag}-${processes}` };
    outcomes.set(processes, await measureSpsDrain(stack, world, drain, {
      PUBLISH_CONCURRENCY: String(scaling.callsPerProcess),
    }));
  }
  return outcomes;
}
