import { runLoad, type JsonRequest, type LoadResult } from './http-load.ts';

export interface RateSettings {
  connections: number;
  warmupMs: number;
  /** Measured time per side, split over `rounds`. */
  durationMs: number;
  rounds: number;
}

export interface RateResult {
  sps: LoadResult;
  bare: LoadResult;
}

export interface RateWithFloorResult extends RateResult {
  /** A handler doing less than `bare`: shown for context, unscored. */
  floor: LoadResult;
}

function combine(results: LoadResult[], durationMs: number): LoadResult {
  const completed = results.reduce((sum, result) => sum + result.completed, 0);
  return {
    completed,
    requestsPerSecond: completed / (durationMs / 1000),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    firstError: results.find((result) => result.firstError !== null)?.firstError ?? null,
  };
}

/** Every side under the same load, in turns: the order reverses each round. */
async function sidesInTurns(sides: (() => JsonRequest)[], settings: RateSettings): Promise<LoadResult[]> {
  const roundMs = settings.durationMs / settings.rounds;
  const load = { connections: settings.connections, warmupMs: settings.warmupMs, durationMs: roundMs };
  const measured = sides.map((side) => ({ side, results: [] as LoadResult[] }));
  for (let round = 0; round < settings.rounds; round += 1) {
    const order = round % 2 === 0 ? measured : [...measured].reverse();
    for (const entry of order) entry.results.push(await runLoad(entry.side, load));
  }
  return measured.map((entry) => combine(entry.results, settings.durationMs));
}

/**
 * Requests/s of SPS and of its bare baseline under the same load. The two sides take turns (SPS,
 * bare, then bare, SPS...) so a change in the machine's load between rounds weighs on both alike.
 */
export async function measureRateInTurns(
  sps: () => JsonRequest,
  bare: () => JsonRequest,
  settings: RateSettings,
): Promise<RateResult> {
  const [spsResult, bareResult] = await sidesInTurns([sps, bare], settings);
  if (spsResult === undefined || bareResult === undefined) throw new Error('a side was not measured');
  return { sps: spsResult, bare: bareResult };
}

/** The same with a floor taking its turns too (SPS, bare, floor, then floor, bare, SPS...). */
export async function measureRateWithFloor(
  sps: () => JsonRequest,
  bare: () => JsonRequest,
  floor: () => JsonRequest,
  settings: RateSettings,
): Promise<RateWithFloorResult> {
  const [spsResult, bareResult, floorResult] = await sidesInTurns([sps, bare, floor], settings);
  if (spsResult === undefined || bareResult === undefined || floorResult === undefined) {
    throw new Error('a side was not measured');
  }
  return { sps: spsResult, bare: bareResult, floor: floorResult };
}
