import type { Database } from '../../shared/db/database.ts';
import type { BenchKnobs } from './bench-knobs.ts';
import type { BenchServers } from './bench-servers.ts';
import { clearBenchWork, type BenchStack } from './bench-stack.ts';
import type { BenchTenant } from './bench-tenant.ts';
import { measureBareLateness, measureSpsLateness, type LatenessSettings } from './lateness-measure.ts';
import {
  latenessFloorMs, latenessRows, postRateRow, postRatio, postRatioKeptRow, publishJobRow, publishJobScaleRow,
  ratioKeptTarget,
} from './measure-rows.ts';
import { measurePostRate, type PostRateResult } from './post-rate-measure.ts';
import { measureBarePublishJobs, measureSpsPublishJobs, type PublishJobSettings } from './publish-job-measure.ts';
import type { BenchRow } from './results-table.ts';
import { seedOrganizations, seedPosts, type SeededOrganization } from './seed-database.ts';

/** One benchmark run: where the measures run, their knobs, and the table they add rows to. */
export interface BenchRun {
  stack: BenchStack;
  servers: BenchServers;
  knobs: BenchKnobs;
  rows: BenchRow[];
  log: (line: string) => void;
}

/** What the table's readers need to know about how the figures were taken. */
export const benchNotes: readonly string[] = [
  'Lateness: when the Mastodon simulator received a post minus its due time. The ratio divides SPS\'s p99 by '
    + `max(bare p99, ${latenessFloorMs} ms), so a baseline of a few ms does not make the ratio meaningless.`,
  'POST /posts: SPS (authentication, rate limit, platform rules, insertMany, delayed job) against a bare Koa handler '
    + '(insertOne + delayed queue.add), both with the api\'s node flags; "seeded vs empty" must keep '
    + `${ratioKeptTarget.toFixed(2)}x of the empty-database ratio.`,
  'Publish job time: BullMQ finishedOn - processedOn of each job, one post due every 200 ms (5 jobs/s, so jobs do not '
    + 'queue); the bare job is one HTTP POST to the same simulator, no database. "vs 1,000 posts" times the seeded '
    + 'database and a second database of 1,000 posts (its own workers process) in the same minute, jobs interleaved, '
    + 'so the machine\'s load weighs on both alike.',
  'After seeding, the PostgreSQL database under FerretDB gets one VACUUM ANALYZE, as autovacuum would have done to a '
    + 'database that grew over months.',
];

const sizeLabel = (posts: number): string => `${posts.toLocaleString('en')} posts`;

/** Posts in the database right now (what the table's "database size" column says). */
const postCount = (db: Database): Promise<number> => db.posts.estimatedDocumentCount();

async function runPostRate({ stack, knobs, rows, log }: BenchRun): Promise<PostRateResult> {
  const size = sizeLabel(await postCount(stack.main.db));
  log(`POST /posts on ${size}: SPS and bare in turns, ${knobs.BENCH_SECONDS} s each...`);
  const result = await measurePostRate(stack, {
    connections: knobs.BENCH_CONNECTIONS, warmupMs: knobs.BENCH_WARMUP_SECONDS * 1000,
    durationMs: knobs.BENCH_SECONDS * 1000, rounds: 2,
  });
  rows.push(postRateRow(result, size));
  for (const [side, load] of [['SPS', result.sps], ['bare', result.bare]] as const) {
    if (load.firstError !== null) log(`POST /posts ${side}: ${load.errors} errors, the first: ${load.firstError}`);
  }
  await clearBenchWork(stack);
  return result;
}

async function runLateness({ stack, knobs, rows, log }: BenchRun, createRate: number, phase: string): Promise<void> {
  const size = sizeLabel(await postCount(stack.main.db));
  const lateness: LatenessSettings = {
    posts: knobs.BENCH_LATENESS_POSTS, spreadMs: knobs.BENCH_LATENESS_SECONDS * 1000, leadMs: 10_000, graceMs: 60_000,
    connections: knobs.BENCH_CONNECTIONS, createRatePerSecond: createRate,
  };
  log(`lateness on ${size}: SPS, ${lateness.posts} posts due over ${knobs.BENCH_LATENESS_SECONDS} s...`);
  const sps = await measureSpsLateness(stack, lateness, `${phase}-lateness-sps`);
  if (sps.headroomMs < 0) log(`creating the posts ran ${-sps.headroomMs} ms past the first due time`);
  log(`lateness on ${size}: bare BullMQ...`);
  const bare = await measureBareLateness(stack, lateness, `${phase}-lateness-bare`);
  rows.push(...latenessRows(sps, bare, size, knobs.BENCH_LATENESS_SECONDS));
  await clearBenchWork(stack);
}

const publishJobSettings = (knobs: BenchKnobs): PublishJobSettings =>
  ({ jobs: knobs.BENCH_PUBLISH_JOBS, intervalMs: 200, leadMs: 3_000, graceMs: 30_000 });

/** Publish jobs on the small database against the bare worker (the first phase). */
async function runSmallPublishJobs({ stack, knobs, rows, log }: BenchRun): Promise<void> {
  const size = sizeLabel(await postCount(stack.small.db));
  log(`publish job time on ${size}: SPS then bare, ${knobs.BENCH_PUBLISH_JOBS} jobs each...`);
  const settings = publishJobSettings(knobs);
  const [sps] = await measureSpsPublishJobs([stack.small], stack.simulator, settings, 'small-jobs-sps');
  const bare = await measureBarePublishJobs(stack, settings, 'small-jobs-bare');
  if (sps === undefined) throw new Error('no result for the small database');
  rows.push(publishJobRow(sps, bare, size));
  await clearBenchWork(stack);
}

/** Publish jobs on the seeded and the small database in the same minute, then the bare worker. */
async function runSeededPublishJobs({ stack, knobs, rows, log }: BenchRun): Promise<void> {
  const smallSize = sizeLabel(await postCount(stack.small.db));
  const seededSize = sizeLabel(await postCount(stack.main.db));
  log(`publish job time on ${seededSize} and ${smallSize} in turns, then bare; ${knobs.BENCH_PUBLISH_JOBS} jobs each`);
  const settings = publishJobSettings(knobs);
  const tenants = [stack.small, stack.main];
  const [small, seeded] = await measureSpsPublishJobs(tenants, stack.simulator, settings, 'seeded-jobs-sps');
  const bare = await measureBarePublishJobs(stack, settings, 'seeded-jobs-bare');
  if (small === undefined || seeded === undefined) throw new Error('no result for one of the databases');
  rows.push(publishJobRow(seeded, bare, seededSize), publishJobScaleRow(small, seeded, smallSize, seededSize));
  await clearBenchWork(stack);
}

/** The organizations seeded in each tenant's database, made on its first seeding. */
const seededOrganizations = new Map<BenchTenant, SeededOrganization[]>();

/** Seeds the tenant's database until it holds `target` posts. */
async function seedUpTo({ stack, knobs, log }: BenchRun, tenant: BenchTenant, target: number): Promise<void> {
  const instanceUrl = stack.simulator.origin;
  let organizations = seededOrganizations.get(tenant);
  if (organizations === undefined) {
    const options = { count: knobs.BENCH_ORGANIZATIONS, instanceUrl, mediaPerOrganization: 3 };
    organizations = await seedOrganizations(tenant.db, stack.secrets, options);
    seededOrganizations.set(tenant, organizations);
  }
  const missing = target - (await postCount(tenant.db));
  if (missing <= 0) return;
  log(`seeding ${missing.toLocaleString('en')} posts over ${organizations.length} organizations...`);
  const report = await seedPosts(tenant.db, organizations, { count: missing, instanceUrl }, log);
  const [posts, notifications] = [report.posts, report.notifications].map((value) => value.toLocaleString('en'));
  log(`seeded ${posts ?? ''} posts and ${notifications ?? ''} notifications in ${report.seconds.toFixed(0)} s`);
}

/**
 * The measures in the order issue 17 asks: POST /posts and lateness on the empty database and
 * publish jobs on 1,000 posts; then the same after seeding up to BENCH_POSTS, publish jobs on
 * both sizes at once.
 */
export async function runPhases(run: BenchRun): Promise<void> {
  const { stack, servers, knobs, rows, log } = run;
  await seedUpTo(run, stack.small, knobs.BENCH_SMALL_POSTS);
  await servers.vacuumAnalyze();
  const emptyRate = await runPostRate(run);
  await runLateness(run, emptyRate.sps.requestsPerSecond, 'empty');
  await runSmallPublishJobs(run);

  await seedUpTo(run, stack.main, knobs.BENCH_POSTS);
  log('VACUUM ANALYZE after seeding...');
  await servers.vacuumAnalyze();
  const seededSize = sizeLabel(await postCount(stack.main.db));
  const seededRate = await runPostRate(run);
  rows.push(postRatioKeptRow(postRatio(emptyRate), postRatio(seededRate), seededSize));
  await runLateness(run, seededRate.sps.requestsPerSecond, 'seeded');
  await runSeededPublishJobs(run);
}
