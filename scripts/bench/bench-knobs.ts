import { z } from 'zod';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);

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
  /** 0 leaves the upload benchmark out. */
  BENCH_UPLOAD: z.enum(['0', '1']).default('1'),
  /** 1 keeps the processes' logs (and prints where) even when every target is met. */
  BENCH_KEEP_LOGS: z.enum(['0', '1']).default('0'),
});
export type BenchKnobs = z.infer<typeof benchKnobs>;
