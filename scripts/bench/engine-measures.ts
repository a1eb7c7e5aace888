// The measures issue 16 adds to `npm run bench` (issue 17's are in bench-phases.ts): each runs
// SPS then its baseline on the same servers and adds its rows, then clears what it created.
import { clearBenchWork } from './bench-stack.ts';
import { postCount, sizeLabel, type BenchRun } from './bench-run.ts';
import { measureEventWrites } from './event-writes-measure.ts';
import { measureIntegrationsRate } from './integrations-rate-measure.ts';
import {
  measureBareLateness, measureDurableLateness, measureSpsLateness, shapeLabel, type LatenessCreation,
  type LatenessShape,
} from './lateness-measure.ts';
import {
  eventWritesRow, latenessFloorRow, latenessRows, nowLatencyRow, publishRateRow, requestRateRow,
} from './measure-rows.ts';
import { measureNowLatency } from './now-latency-measure.ts';
import { measureBarePublishRate, measureSpsPublishRate } from './publish-rate-measure.ts';

/** "2.5 s before" or "300 ms after": whether creating the posts kept clear of their due time. */
const headroom = (ms: number): string =>
  (ms >= 0 ? `${(ms / 1000).toFixed(1)} s before` : `${Math.round(-ms)} ms after (the measure fails)`);

export async function runIntegrationsRate({ stack, knobs, rows, log }: BenchRun): Promise<void> {
  const size = sizeLabel(await postCount(stack.main.db));
  log(`GET /integrations on ${size}: SPS and bare in turns, ${knobs.BENCH_SECONDS} s each...`);
  const result = await measureIntegrationsRate(stack, {
    connections: knobs.BENCH_CONNECTIONS, warmupMs: knobs.BENCH_WARMUP_SECONDS * 1000,
    durationMs: knobs.BENCH_SECONDS * 1000, rounds: 2,
  });
  rows.push(requestRateRow(`GET /integrations, ${knobs.BENCH_CONNECTIONS} connections (req/s)`, result, size));
  for (const [side, load] of [['SPS', result.sps], ['bare', result.bare]] as const) {
    if (load.firstError === null) continue;
    log(`GET /integrations ${side}: ${load.errors} errors, the first: ${load.firstError}`);
  }
}

/** Run while nothing else is: after a measure that left no job behind. */
export async function runNowLatency({ stack, knobs, rows, log }: BenchRun): Promise<void> {
  const size = sizeLabel(await postCount(stack.main.db));
  log(`POST /posts type now until received, ${knobs.BENCH_NOW_POSTS} posts one after the other...`);
  rows.push(nowLatencyRow(await measureNowLatency(stack, knobs.BENCH_NOW_POSTS, 'now'), size));
  await clearBenchWork(stack);
}

export async function runPublishRate({ stack, knobs, rows, log }: BenchRun): Promise<void> {
  const size = sizeLabel(await postCount(stack.main.db));
  const posts = knobs.BENCH_PUBLISH_RATE_POSTS;
  // Long enough for SPS to drain the backlog at a few dozen jobs/s on a busy machine.
  const settings = { posts, connections: knobs.BENCH_CONNECTIONS, leadMs: 5_000, graceMs: 60_000 + posts * 50 };
  log(`publish jobs/s on ${size}: SPS, ${posts} posts due at once on the slow simulator...`);
  const sps = await measureSpsPublishRate(stack, settings, 'rate-sps');
  await clearBenchWork(stack);
  log('publish jobs/s: bare BullMQ...');
  const bare = await measureBarePublishRate(stack, settings, 'rate-bare');
  log(`publish jobs/s: SPS's posts were created ${headroom(sps.headroomMs)} the due time`);
  rows.push(publishRateRow(sps, bare, size));
  await clearBenchWork(stack);
}

/** Scheduling lateness of `posts` posts of the given shape, SPS then bare BullMQ. */
export async function runLateness(
  { stack, knobs, rows, log }: BenchRun,
  measure: {
    posts: number; shape: LatenessShape; creation: LatenessCreation; tag: string;
    /** Scored against the durable bare worker, the no-database one shown as a floor (the burst). */
    durable?: boolean;
  },
): Promise<void> {
  const size = sizeLabel(await postCount(stack.main.db));
  const { posts, shape, creation } = measure;
  // A minute of grace, and time to drain a backlog at a few dozen jobs/s.
  const settings = {
    posts, shape, creation, leadMs: 10_000, graceMs: 60_000 + posts * 30, connections: knobs.BENCH_CONNECTIONS,
  };
  const label = shapeLabel(posts, shape);
  log(`lateness on ${size}: SPS, ${label} (made ${creation.via === 'api' ? 'through the api' : 'by createPosts'})...`);
  const sps = await measureSpsLateness(stack, settings, `${measure.tag}-sps`);
  log(`lateness: SPS's posts were created ${headroom(sps.headroomMs)} the first due time`);
  await clearBenchWork(stack);
  log(`lateness on ${size}: bare BullMQ...`);
  const bare = await measureBareLateness(stack, settings, `${measure.tag}-bare`);
  await clearBenchWork(stack);
  if (measure.durable === true) {
    log(`lateness on ${size}: durable bare BullMQ (reads and writes the post)...`);
    const durable = await measureDurableLateness(stack, settings, `${measure.tag}-durable`);
    rows.push(...latenessRows(sps, durable, size, `${label}, vs durable bare`), latenessFloorRow(sps, bare, size));
    await clearBenchWork(stack);
    return;
  }
  rows.push(...latenessRows(sps, bare, size, label));
}

/** Issue 31 item 6: what a publish's event writes cost, against the one row a grouped design would write. */
export async function runEventWrites({ stack, servers, knobs, rows, log }: BenchRun): Promise<void> {
  const size = sizeLabel(await postCount(stack.small.db));
  const publishes = knobs.BENCH_EVENT_PUBLISHES;
  log(`event writes of ${publishes} publishes, 100 at a time: today and notification alone in turns...`);
  const result = await measureEventWrites(stack.small.db, stack.secrets, stack.connection, {
    publishes: knobs.BENCH_EVENT_PUBLISHES, concurrency: 100, rounds: 3, queuePrefix: `${servers.queuePrefix}-events`,
  });
  rows.push(eventWritesRow(result, size));
}
