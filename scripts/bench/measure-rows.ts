import { platformDelayMs } from './bench-stack.ts';
import type { EventWritesResult } from './event-writes-measure.ts';
import type { LatenessResult } from './lateness-measure.ts';
import type { NowLatencyResult } from './now-latency-measure.ts';
import type { PostRateResult } from './post-rate-measure.ts';
import type { PublishJobResult } from './publish-job-measure.ts';
import type { PublishRateResult } from './publish-rate-measure.ts';
import type { RateResult } from './rate-in-turns.ts';
import { figure, ratioText, type BenchRow } from './results-table.ts';

/** Bare lateness below this is treated as this, so a near-zero baseline cannot make any SPS figure fail. */
export const latenessFloorMs = 50;
/** POST /posts on the seeded database must keep this share of its empty-database ratio (run-to-run noise). */
export const ratioKeptTarget = 0.9;

/** Requests/s and publish jobs/s must reach this share of the baseline's. */
const requestRateTarget = 0.7;
const publishRateTarget = 0.9;

export const postRatio = (result: RateResult): number =>
  result.sps.requestsPerSecond / result.bare.requestsPerSecond;

/** Requests/s of one endpoint against its bare handler; any error answer fails the row. */
export function requestRateRow(measure: string, result: RateResult, size: string): BenchRow {
  const ratio = postRatio(result);
  const shown = (side: RateResult['sps']): string =>
    (side.errors > 0 ? `${side.errors} errors` : figure(side.requestsPerSecond));
  return {
    measure, databaseSize: size, sps: shown(result.sps), baseline: shown(result.bare), ratio: ratioText(ratio),
    target: `>= ${requestRateTarget.toFixed(2)}x`,
    pass: result.sps.errors + result.bare.errors === 0 && ratio >= requestRateTarget,
  };
}

export const postRateRow = (result: PostRateResult, size: string): BenchRow =>
  requestRateRow('POST /posts, 10 connections (req/s)', result, size);

/** POST /posts against the bare handler that writes no event row: a floor, shown, not scored. */
export function postRateFloorRow(result: PostRateResult, size: string): BenchRow {
  return {
    measure: 'POST /posts vs bare without the event row (floor)', databaseSize: size,
    sps: figure(result.sps.requestsPerSecond), baseline: figure(result.floor.requestsPerSecond),
    ratio: ratioText(result.sps.requestsPerSecond / result.floor.requestsPerSecond), target: '-', pass: null,
  };
}

export function postRatioKeptRow(emptyRatio: number, seededRatio: number, size: string): BenchRow {
  const kept = seededRatio / emptyRatio;
  return {
    measure: 'POST /posts ratio, seeded vs empty', databaseSize: size,
    sps: ratioText(seededRatio), baseline: ratioText(emptyRatio),
    ratio: ratioText(kept), target: `>= ${ratioKeptTarget.toFixed(2)}x`, pass: kept >= ratioKeptTarget,
  };
}

const againstFloor = (sps: number, bare: number): number => sps / Math.max(bare, latenessFloorMs);

/**
 * p50 for context and p99 against the baseline's; every post must be published, and SPS's must
 * all have been created before the first was due (or its lateness would be the creation's).
 */
export function latenessRows(sps: LatenessResult, bare: LatenessResult, size: string, shape: string): BenchRow[] {
  const withCount = (result: LatenessResult): string =>
    `${figure(result.p99Ms)} (${result.published}/${result.expected})`;
  const ratio = againstFloor(sps.p99Ms, bare.p99Ms);
  const allPublished = sps.published === sps.expected && bare.published === bare.expected;
  const createdInTime = sps.headroomMs >= 0 && bare.headroomMs >= 0;
  return [
    {
      measure: `lateness p50 (ms), ${shape}`, databaseSize: size,
      sps: figure(sps.p50Ms), baseline: figure(bare.p50Ms),
      ratio: ratioText(againstFloor(sps.p50Ms, bare.p50Ms)), target: '-', pass: null,
    },
    {
      measure: 'lateness p99 (ms) (published)', databaseSize: size,
      sps: withCount(sps) + (createdInTime ? '' : ' created late'), baseline: withCount(bare),
      ratio: ratioText(ratio), target: '<= 1.20x, all published', pass: allPublished && createdInTime && ratio <= 1.2,
    },
  ];
}

/** p99 against the bare worker that writes nothing: a floor no durable publisher reaches, shown, not scored. */
export function latenessFloorRow(sps: LatenessResult, bare: LatenessResult, size: string): BenchRow {
  return {
    measure: 'lateness p99 (ms) vs no-database bare (floor)', databaseSize: size,
    sps: figure(sps.p99Ms), baseline: figure(bare.p99Ms),
    ratio: ratioText(againstFloor(sps.p99Ms, bare.p99Ms)), target: '-', pass: null,
  };
}

/** Jobs/s draining a backlog against a slow platform; every post must be published, created before it was due. */
export function publishRateRow(sps: PublishRateResult, bare: PublishRateResult, size: string): BenchRow {
  const shown = (result: PublishRateResult): string =>
    `${figure(result.jobsPerSecond)} (${result.published}/${result.expected})`;
  const ratio = sps.jobsPerSecond / bare.jobsPerSecond;
  const complete = [sps, bare].every((result) => result.published === result.expected && result.headroomMs >= 0);
  return {
    measure: `publish jobs/s, ${sps.expected.toLocaleString('en')} due at once, platform ${platformDelayMs} ms`,
    databaseSize: size,
    sps: shown(sps), baseline: shown(bare), ratio: ratioText(ratio),
    target: `>= ${publishRateTarget.toFixed(2)}x, all published`, pass: complete && ratio >= publishRateTarget,
  };
}

/** Target of `POST /posts` type now until the simulator has the status, on an idle stack (no baseline). */
export const nowLatencyTargetMs = 25;

export function nowLatencyRow(result: NowLatencyResult, size: string): BenchRow {
  return {
    measure: 'POST /posts now until received, idle, p50 (ms)', databaseSize: size,
    sps: `${figure(result.p50Ms)} (p90 ${figure(result.p90Ms)}, ${result.published}/${result.expected})`,
    baseline: '-', ratio: '-', target: `< ${nowLatencyTargetMs} ms, all published`,
    pass: result.published === result.expected && result.p50Ms < nowLatencyTargetMs,
  };
}

const allTimed = (result: PublishJobResult): boolean =>
  result.published === result.expected && result.timed === result.expected;

const withP90 = (result: PublishJobResult): string => `${figure(result.medianMs)} (p90 ${figure(result.p90Ms)})`;

/** For context (SPS's job against one HTTP call); it fails only when a job did not publish. */
export function publishJobRow(sps: PublishJobResult, bare: PublishJobResult, size: string): BenchRow {
  return {
    measure: `publish job time, median of ${sps.expected} (ms)`, databaseSize: size,
    sps: withP90(sps), baseline: withP90(bare),
    ratio: ratioText(sps.medianMs / bare.medianMs), target: 'all published',
    pass: allTimed(sps) && allTimed(bare) ? null : false,
  };
}

export function publishJobScaleRow(
  small: PublishJobResult,
  large: PublishJobResult,
  smallSize: string,
  largeSize: string,
): BenchRow {
  const ratio = large.medianMs / small.medianMs;
  return {
    measure: `publish job median, vs ${smallSize}`, databaseSize: largeSize,
    sps: figure(large.medianMs), baseline: figure(small.medianMs),
    ratio: ratioText(ratio), target: '<= 1.20x', pass: allTimed(small) && allTimed(large) && ratio <= 1.2,
  };
}

/**
 * Context, not a target: how much longer a burst of publishes takes to write its notification and
 * webhook delivery than the notification alone, the most one grouped row could save.
 */
export function eventWritesRow(result: EventWritesResult, size: string): BenchRow {
  const perPublish = (ms: number): string => `${figure(ms)} ms (${figure((ms * 1000) / result.publishes)} us/publish)`;
  return {
    measure: `notification + webhook delivery of ${result.publishes.toLocaleString('en')} publishes, `
      + `${String(result.concurrency)} at a time, vs notification alone`,
    databaseSize: size, sps: perPublish(result.todayMs), baseline: perPublish(result.notificationOnlyMs),
    ratio: ratioText(result.todayMs / result.notificationOnlyMs), target: '-', pass: null,
  };
}
