import { z } from 'zod';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The groups of measures `BENCH_ONLY` can pick, in the order a full run makes them. */
export const benchMeasures = [
  'post-rate', 'integrations', 'now', 'lateness', 'publish-jobs', 'publish-rate', 'spread', 'burst',
  'drain', 'fairness', 'processes', 'event-writes', 'seeded', 'upload',
] as const;
export type BenchMeasure = (typeof benchMeasures)[number];

const measureList = z.string().transform((value, context): ReadonlySet<BenchMeasure> | null => {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) return null;
  const unknown = names.filter((name) => !(benchMeasures as readonly string[]).includes(name));
  if (unknown.length > 0) {
    const known = benchMeasures.join(', ');
    context.addIssue({ code: 'custom', message: `unknown measure ${unknown.join(', ')}; known: ${known}` });
    return z.NEVER;
  }
  return new Set(names as BenchMeasure[]);
});

/** The environment knobs of `npm run bench`; smaller values make a quick try. */
export const benchKnobs = z.object({
  /** Posts in the seeded database (documents: a thread part counts one). */
  BENCH_POSTS: count(100_000),
  /** The small database publish jobs are also timed on. */
  BENCH_SMALL_POSTS: count(1_000),
  BENCH_ORGANIZATIONS: count(100),
  /** Measured seconds of POST /posts per side, after the warm-up. */
  BENCH_SECONDS: count(10),
  BENCH_WARMUP_SECONDS: count(2),
  BENCH_CONNECTIONS: count(10),
  BENCH_LATENESS_POSTS: count(600),
  BENCH_LATENESS_SECONDS: count(30),
  BENCH_PUBLISH_JOBS: count(100),
  /** Posts due at once for publish jobs/s, against a platform answering in 20 ms. */
  BENCH_PUBLISH_RATE_POSTS: count(2_000),
  /** Scheduling lateness at scale: posts spread over BENCH_SPREAD_SECONDS, and posts due in the same second. */
  BENCH_SPREAD_POSTS: count(10_000),
  BENCH_SPREAD_SECONDS: count(60),
  BENCH_BURST_POSTS: count(10_000),
  /** Issue 31's world: organizations, and channels of each (each its own account on the stand-in). */
  BENCH_SCALE_ORGANIZATIONS: count(100),
  BENCH_SCALE_CHANNELS: count(20),
  /** Posts of the drain rows (one per channel in turn), due in one second, on a 500 ms and a 2 s platform. */
  BENCH_DRAIN_POSTS: count(2_000),
  /** The one organization's backlog in the fairness row; the other organizations post one each. */
  BENCH_FAIRNESS_BACKLOG: count(10_000),
  /**
   * The same, with the backlog on one account: its publishes are bounded by
   * PUBLISH_ACCOUNT_CONCURRENCY, so the rest wait in Redis while other organizations pass.
   */
  BENCH_FAIRNESS_ONE_ACCOUNT: count(500),
  /** Posts of the processes rows, drained by 1, 2 and 4 workers processes of BENCH_PROCESS_CALLS slots each. */
  BENCH_PROCESSES_POSTS: count(1_000),
  BENCH_PROCESS_CALLS: count(20),
  /** Publishes whose notification and webhook delivery are written, 100 at a time, per round and side. */
  BENCH_EVENT_PUBLISHES: count(2_000),
  /** `POST /posts` type now, one after the other, each timed until the simulator receives it. */
  BENCH_NOW_POSTS: count(50),
  /** 0 leaves the upload benchmark out. */
  BENCH_UPLOAD: z.enum(['0', '1']).default('1'),
  /**
   * A comma list of measure groups to run alone (`publish-rate,burst`), for a quick look at one
   * figure; empty runs them all. `seeded` is the whole seeded phase (seeding included).
   */
  BENCH_ONLY: measureList.default(null),
  /** 1 keeps the processes' logs (and prints where) even when every target is met. */
  BENCH_KEEP_LOGS: z.enum(['0', '1']).default('0'),
});
export type BenchKnobs = z.infer<typeof benchKnobs>;

/** Whether the run makes this group of measures (every group when BENCH_ONLY is empty). */
export const runs = (knobs: BenchKnobs, measure: BenchMeasure): boolean =>
  knobs.BENCH_ONLY === null || knobs.BENCH_ONLY.has(measure);
