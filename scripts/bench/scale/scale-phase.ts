import { runs } from '../bench-knobs.ts';
import type { BenchRun } from '../bench-run.ts';
import { drainRow, fairnessRow, processesRow } from './scale-rows.ts';
import { measureBurstDrain, measureFairness, measureProcessScaling } from './scale-measures.ts';
import { createScaleWorld } from './scale-world.ts';

/** A real platform's answer to a status: hundreds of milliseconds; a slow one's, seconds. */
const platformMs = 500;
const slowPlatformMs = 2_000;

/** The other organizations' posts fall over this long after the backlog's second. */
const fairnessSpreadMs = 20_000;

/**
 * Issue 31's rows, on a world of their own (BENCH_SCALE_ORGANIZATIONS organizations of
 * BENCH_SCALE_CHANNELS channels) with SPS's default concurrency: a burst's drain against a bare
 * BullMQ worker at concurrency 100 on a 500 ms and a 2 s platform, fairness during one
 * organization's backlog, and drain with 1, 2 and 4 workers processes while latency-bound.
 */
export async function runScaleMeasures(run: BenchRun): Promise<void> {
  const { stack, servers, knobs, rows, log } = run;
  if (!runs(knobs, 'drain') && !runs(knobs, 'fairness') && !runs(knobs, 'processes')) return;
  const size = { organizations: knobs.BENCH_SCALE_ORGANIZATIONS, channelsPerOrganization: knobs.BENCH_SCALE_CHANNELS };
  const channels = (size.organizations * size.channelsPerOrganization).toLocaleString('en');
  log(`making ${size.organizations} organizations with ${channels} channels for the scale rows...`);
  const world = await createScaleWorld(stack, servers, size);
  const where = `${channels} channels`;
  try {
    if (runs(knobs, 'drain')) {
      for (const [label, ms] of [['500 ms', platformMs], ['2 s', slowPlatformMs]] as const) {
        const posts = knobs.BENCH_DRAIN_POSTS;
        log(`burst drain: ${posts} posts due in one second, ${label} platform, SPS then bare...`);
        const result = await measureBurstDrain(stack, world, { posts, platformMs: ms, tag: `drain-${ms}` });
        rows.push(drainRow(`${posts.toLocaleString('en')} posts in one second, ${label} platform`, result, where));
      }
    }
    if (runs(knobs, 'fairness')) {
      const backlog = knobs.BENCH_FAIRNESS_BACKLOG;
      log(`fairness: one organization's ${backlog} posts, the others' one each over ${fairnessSpreadMs / 1000} s...`);
      const result = await measureFairness(stack, world, {
        backlog, spreadMs: fairnessSpreadMs, platformMs, tag: 'fairness',
      });
      rows.push(fairnessRow(`${backlog.toLocaleString('en')}-post backlog of one organization`, result, where));
      const onOne = knobs.BENCH_FAIRNESS_ONE_ACCOUNT;
      log(`fairness: ${onOne} posts of one account, the others' one each over ${fairnessSpreadMs / 1000} s...`);
      const concentrated = await measureFairness(stack, world, {
        backlog: onOne, spreadMs: fairnessSpreadMs, platformMs, tag: 'fairness-account', oneAccount: true,
      });
      rows.push(fairnessRow(`${onOne.toLocaleString('en')}-post backlog on one account`, concentrated, where));
    }
    if (runs(knobs, 'processes')) {
      const posts = knobs.BENCH_PROCESSES_POSTS;
      const calls = knobs.BENCH_PROCESS_CALLS;
      log(`processes: ${posts} posts, ${calls} call slots per process, 1, 2 and 4 processes...`);
      const outcomes = await measureProcessScaling(stack, world, {
        posts, platformMs, counts: [1, 2, 4], callsPerProcess: calls, tag: 'processes',
      });
      const single = outcomes.get(1);
      if (single === undefined) throw new Error('no drain with one process');
      const label = `${posts.toLocaleString('en')} posts, ${calls} slots each, 500 ms platform`;
      for (const processes of [2, 4]) {
        const outcome = outcomes.get(processes);
        if (outcome !== undefined) rows.push(processesRow(label, processes, outcome, single, where));
      }
    }
  } finally {
    await world.close();
  }
}
