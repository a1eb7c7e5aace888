import { figure, ratioText, type BenchRow } from '../results-table.ts';
import type { DueOutcome } from './due-burst.ts';
import type { DrainComparison, FairnessOutcome } from './scale-measures.ts';

/** Issue 31's targets. */
export const scaleTargets = {
  /** SPS's drain time against the bare worker's, at most. */
  drainRatio: 2,
  /** The other organizations' posts, p99 lateness during the backlog, at most (ms). */
  fairnessP99Ms: 5_000,
  /** Drain rate with two workers processes against one, at least. */
  twoProcesses: 1.7,
} as const;

/** Every post out, none twice, all created before the first was due. */
const complete = (outcome: DueOutcome): boolean =>
  outcome.published === outcome.expected && outcome.repeats === 0 && outcome.headroomMs >= 0;

/** What a side shows: its figure, or what went wrong with it. */
function shown(outcome: DueOutcome, value: string): string {
  if (outcome.repeats > 0) return `${outcome.repeats} published twice`;
  if (outcome.published < outcome.expected) return `${outcome.published}/${outcome.expected} published`;
  if (outcome.headroomMs < 0) return `created ${figure(-outcome.headroomMs)} ms late`;
  return value;
}

const seconds = (ms: number): string => figure(ms / 1000, 's');

export function drainRow(label: string, result: DrainComparison, size: string): BenchRow {
  const ratio = result.sps.drainMs / result.bare.drainMs;
  return {
    measure: `${label}: drain, last published after due`, databaseSize: size,
    sps: shown(result.sps, `${seconds(result.sps.drainMs)} (p99 ${seconds(result.sps.p99Ms)})`),
    baseline: shown(result.bare, seconds(result.bare.drainMs)),
    ratio: ratioText(ratio), target: `<= ${scaleTargets.drainRatio.toFixed(2)}x`,
    pass: complete(result.sps) && complete(result.bare) && ratio <= scaleTargets.drainRatio,
  };
}

export function fairnessRow(label: string, result: FairnessOutcome, size: string): BenchRow {
  return {
    measure: `${label}: other organizations' posts, p99 late`, databaseSize: size,
    sps: shown(result.others, `${seconds(result.others.p99Ms)} (p50 ${seconds(result.others.p50Ms)})`),
    baseline: shown(result.backlog, `backlog drained in ${seconds(result.backlog.drainMs)}`),
    ratio: '-', target: `<= ${seconds(scaleTargets.fairnessP99Ms)}`,
    pass: complete(result.others) && complete(result.backlog) && result.others.p99Ms <= scaleTargets.fairnessP99Ms,
  };
}

const ratePerSecond = (outcome: DueOutcome): number => outcome.published / (outcome.drainMs / 1000);

/** Drain rate with `processes` workers processes against one; scored for two, shown for more. */
export function processesRow(
  label: string,
  processes: number,
  outcome: DueOutcome,
  single: DueOutcome,
  size: string,
): BenchRow {
  const ratio = ratePerSecond(outcome) / ratePerSecond(single);
  const scored = processes === 2;
  return {
    measure: `${label}: ${processes} workers processes vs 1 (posts/s)`, databaseSize: size,
    sps: shown(outcome, figure(ratePerSecond(outcome))), baseline: shown(single, figure(ratePerSecond(single))),
    ratio: ratioText(ratio), target: scored ? `>= ${scaleTargets.twoProcesses.toFixed(2)}x` : '-',
    // Unscored rows still fail when a post was lost or published twice.
    pass: !complete(outcome) || !complete(single) ? false : scored ? ratio >= scaleTargets.twoProcesses : null,
  };
}
