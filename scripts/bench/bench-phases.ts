import { runs, type BenchKnobs } from './bench-knobs.ts';
import { postCount, sizeLabel, type BenchRun } from './bench-run.ts';
import { clearBenchWork } from './bench-stack.ts';
import type { BenchTenant } from './bench-tenant.ts';
import {
  runEventWrites, runIntegrationsRate, runLateness, runNowLatency, runPublishRate,
} from './engine-measures.ts';
import {
  postRateFloorRow, postRateRow, postRatio, postRatioKeptRow, publishJobRow, publishJobScaleRow,
} from './measure-rows.ts';
import { measurePostRate, type PostRateResult } from './post-rate-measure.ts';
import { measureBarePublishJobs, measureSpsPublishJobs, type PublishJobSettings } from './publish-job-measure.ts';
import { runScaleMeasures } from './scale/scale-phase.ts';
import { seedOrganizations, seedPosts, type SeededOrganization } from './seed-database.ts';

async function runPostRate({ stack, knobs, rows, log }: BenchRun): Promise<PostRateResult> {
  const size = sizeLabel(await postCount(stack.main.db));
  log(`POST /posts on ${size}: SPS and bare in turns, ${knobs.BENCH_SECONDS} s each...`);
  const result = await measurePostRate(stack, {
    connections: knobs.BENCH_CONNECTIONS, warmupMs: knobs.BENCH_WARMUP_SECONDS * 1000,
    durationMs: knobs.BENCH_SECONDS * 1000, rounds: 2,
  });
  rows.push(postRateRow(result, size), postRateFloorRow(result, size));
  for (const [side, load] of [['SPS', result.sps], ['bare', result.bare], ['floor', result.floor]] as const) {
    if (load.firstError !== null) log(`POST /posts ${side}: ${load.errors} errors, the first: ${load.firstError}`);
  }
  await clearBenchWork(stack);
  return result;
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

/** Issue 17's lateness: posts made through `POST /posts` at the rate it was just measured at. */
const apiLateness = (knobs: BenchKnobs, createRate: number, phase: string) => ({
  posts: knobs.BENCH_LATENESS_POSTS, shape: { kind: 'spread', spreadMs: knobs.BENCH_LATENESS_SECONDS * 1000 } as const,
  creation: { via: 'api', ratePerSecond: createRate } as const, tag: `${phase}-lateness`,
});

/**
 * Issue 16's backlogs, once, on the empty database. Lateness at scale is made by `createPosts`,
 * which makes 10,000 posts in well under the time the api would take.
 */
async function runBacklogMeasures(run: BenchRun): Promise<void> {
  const { knobs } = run;
  if (runs(knobs, 'publish-rate')) await runPublishRate(run);
  if (runs(knobs, 'spread')) {
    await runLateness(run, {
      posts: knobs.BENCH_SPREAD_POSTS, shape: { kind: 'spread', spreadMs: knobs.BENCH_SPREAD_SECONDS * 1000 },
      creation: { via: 'createPosts' }, tag: 'spread',
    });
  }
  if (runs(knobs, 'burst')) {
    await runLateness(run, {
      posts: knobs.BENCH_BURST_POSTS, shape: { kind: 'burst' }, creation: { via: 'createPosts' }, tag: 'burst',
      durable: true,
    });
  }
}

/**
 * On the empty database: POST /posts and GET /integrations, the idle latency of a post published
 * now (while nothing else runs), lateness, publish jobs on 1,000 posts, then issue 16's backlogs
 * (publish jobs/s, lateness of 10,000 posts). After seeding up to BENCH_POSTS: issue 17's
 * measures again, publish jobs on both sizes at once. Issue 16's measures run once: with the
 * seeded phase, twice would take the run past half an hour. BENCH_ONLY picks some of them.
 */
export async function runPhases(run: BenchRun): Promise<void> {
  const { stack, servers, knobs, rows, log } = run;
  await seedUpTo(run, stack.small, knobs.BENCH_SMALL_POSTS);
  await servers.vacuumAnalyze();
  // The seeded phase compares with the empty database's figures: it measures them too.
  const seeded = runs(knobs, 'seeded');
  const emptyRate = runs(knobs, 'post-rate') || runs(knobs, 'lateness') || seeded ? await runPostRate(run) : null;
  if (runs(knobs, 'integrations')) await runIntegrationsRate(run);
  if (runs(knobs, 'now')) await runNowLatency(run);
  if (emptyRate !== null && runs(knobs, 'lateness')) {
    await runLateness(run, apiLateness(knobs, emptyRate.sps.requestsPerSecond, 'empty'));
  }
  if (runs(knobs, 'publish-jobs')) await runSmallPublishJobs(run);
  await runBacklogMeasures(run);
  await runScaleMeasures(run);
  if (runs(knobs, 'event-writes')) await runEventWrites(run);
  if (emptyRate === null || !seeded) return;

  await seedUpTo(run, stack.main, knobs.BENCH_POSTS);
  log('VACUUM ANALYZE after seeding...');
  await servers.vacuumAnalyze();
  const seededSize = sizeLabel(await postCount(stack.main.db));
  const seededRate = await runPostRate(run);
  rows.push(postRatioKeptRow(postRatio(emptyRate), postRatio(seededRate), seededSize));
  await runLateness(run, apiLateness(knobs, seededRate.sps.requestsPerSecond, 'seeded'));
  await runSeededPublishJobs(run);
}
