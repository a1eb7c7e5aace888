import type { BenchStack } from './bench-stack.ts';
import type { JsonRequest } from './http-load.ts';
import { measureRateWithFloor, type RateSettings, type RateWithFloorResult } from './rate-in-turns.ts';
import { scheduledPostBody, spsPostRequest } from './scheduled-post.ts';

export type PostRateSettings = RateSettings;
export type PostRateResult = RateWithFloorResult;

/** A scheduled post due far in the future: it is stored and queued, never published during the run. */
const farFuture = new Date('2099-01-01T00:00:00.000Z');

/**
 * `POST /posts` requests/s with one scheduled post, in turns with the bare Koa handler writing the
 * post, its `post.created` event row and its job (scored), and with it writing no event row (floor).
 */
export async function measurePostRate(stack: BenchStack, settings: PostRateSettings): Promise<PostRateResult> {
  const body = scheduledPostBody(stack.main.channelId, farFuture, 'A scheduled benchmark post');
  const sps = (): JsonRequest => spsPostRequest(stack, body);
  const bare = (): JsonRequest => ({ url: `${stack.bareUrl}/posts`, headers: {}, body });
  const floor = (): JsonRequest => ({ url: `${stack.bareUrl}/posts/no-event`, headers: {}, body });
  return measureRateWithFloor(sps, bare, floor, settings);
}
