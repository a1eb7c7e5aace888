import type { BenchStack } from './bench-stack.ts';
import type { JsonRequest } from './http-load.ts';
import { measureRateInTurns, type RateResult, type RateSettings } from './rate-in-turns.ts';
import { scheduledPostBody, spsPostRequest } from './scheduled-post.ts';

export type PostRateSettings = RateSettings;
export type PostRateResult = RateResult;

/** A scheduled post due far in the future: it is stored and queued, never published during the run. */
const farFuture = new Date('2099-01-01T00:00:00.000Z');

/** `POST /posts` requests/s with one scheduled post, against the bare Koa handler, in turns. */
export async function measurePostRate(stack: BenchStack, settings: PostRateSettings): Promise<PostRateResult> {
  const body = scheduledPostBody(stack.main.channelId, farFuture, 'A scheduled benchmark post');
  const sps = (): JsonRequest => spsPostRequest(stack, body);
  const bare = (): JsonRequest => ({ url: `${stack.bareUrl}/posts`, headers: {}, body });
  return measureRateInTurns(sps, bare, settings);
}
