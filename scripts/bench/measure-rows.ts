import type { LatenessResult } from './lateness-measure.ts';
import type { PostRateResult } from './post-rate-measure.ts';
import type { PublishJobResult } from './publish-job-measure.ts';
import { figure, ratioText, type BenchRow } from './results-table.ts';

/** Bare lateness below this is treated as this, so a near-zero baseline cannot make any SPS figure fail. */
export const latenessFloorMs = 50;
/** POST /posts on the seeded database must keep this share of its empty-database ratio (run-to-run noise). */
export const ratioKeptTarget = 0.9;

export const postRatio = (result: PostRateResult): number =>
  result.sps.requestsPerSecond / result.bare.requestsPerSecond;

export function postRateRow(result: PostRateResult, size: string): BenchRow {
  const ratio = postRatio(result);
  const shown = (side: PostRateResult['sps']): string =>
    (side.errors > 0 ? `${side.errors} errors` : figure(side.requestsPerSecond));
  return {
    measure: 'POST /posts, 10 connections (req/s)', databaseSize: size,
    sps: shown(result.sps), baseline: shown(result.bare),
    ratio: ratioText(ratio), target: '>= 0.70x', pass: result.sps.errors + result.bare.errors === 0 && ratio >= 0.7,
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

export function latenessRows(
  sps: LatenessResult,
  bare: LatenessResult,
  size: string,
  spreadSeconds: number,
): BenchRow[] {
  const withCount = (result: LatenessResult): string =>
    `${figure(result.p99Ms)} (${result.published}/${result.expected})`;
  const ratio = againstFloor(sps.p99Ms, bare.p99Ms);
  const allPublished = sps.published === sps.expected && bare.published === bare.expected;
  return [
    {
      measure: `lateness p50 (ms), ${sps.expected} posts over ${spreadSeconds} s`, databaseSize: size,
      sps: figure(sps.p50Ms), baseline: figure(bare.p50Ms),
      ratio: ratioText(againstFloor(sps.p50Ms, bare.p50Ms)), target: '-', pass: null,
    },
    {
      measure: 'lateness p99 (ms) (published)', databaseSize: size, sps: withCount(sps), baseline: withCount(bare),
      ratio: ratioText(ratio), target: '<= 1.20x, all published', pass: allPublished && ratio <= 1.2,
    },
  ];
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
