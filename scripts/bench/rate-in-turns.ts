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

function combine(results: LoadResult[], durationMs: number): LoadResult {
  const completed = results.reduce((sum, result) => sum + result.completed, 0);
  return {
    completed,
    requestsPerSecond: completed / (durationMs / 1000),
    errors: results.reduce((sum, result) => sum + result.errors, 0),
    firstError: results.find((result) => result.firstError !== null)?.firstError ?? null,
  };
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
  const roundMs = settings.durationMs / settings.rounds;
  const load = { connections: settings.connections, warmupMs: settings.warmupMs, durationMs: roundMs };
  const spsRounds: LoadResult[] = [];
  const bareRounds: LoadResult[] = [];
  for (let round = 0; round < settings.rounds; round += 1) {
    if (round % 2 === 0) {
      spsRounds.push(await runLoad(sps, load));
      bareRounds.push(await runLoad(bare, load));
    } else {
      bareRounds.push(await runLoad(bare, load));
      spsRounds.push(await runLoad(sps, load));
    }
  }
  return { sps: combine(spsRounds, settings.durationMs), bare: combine(bareRounds, settings.durationMs) };
}
