import type { BenchStack } from './bench-stack.ts';
import { runLoad, type JsonRequest, type LoadResult } from './http-load.ts';
import { scheduledPostBody, spsPostRequest } from './scheduled-post.ts';

export interface PostRateSettings {
  connections: number;
  warmupMs: number;
  /** Measured time per side, split over `rounds`. */
  durationMs: number;
  rounds: number;
}

export interface PostRateResult {
  sps: LoadResult;
  bare: LoadResult;
}

/** A scheduled post due far in the future: it is stored and queued, never published during the run. */
const farFuture = new Date('2099-01-01T00:00:00.000Z');

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
 * `POST /posts` requests/s with one scheduled post, against the bare Koa handler. The two sides
 * take turns (SPS, bare, then bare, SPS...) so a change in the machine's load between rounds
 * weighs on both alike.
 */
export async function measurePostRate(stack: BenchStack, settings: PostRateSettings): Promise<PostRateResult> {
  const body = scheduledPostBody(stack.main.channelId, farFuture, 'A scheduled benchmark post');
  const sps = (): JsonRequest => spsPostRequest(stack, body);
  const bare = (): JsonRequest => ({ url: stack.bareUrl, headers: {}, body });
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
