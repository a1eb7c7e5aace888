import { describe, expect, it } from 'vitest';
import { loopSampleMs, watchEventLoop } from '../support/event-loop-watch.ts';

/** Keeps the loop busy for `ms`, as a slow regular expression or a long count would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the stall itself */ }
}

describe('watchEventLoop', () => {
  it('measures a stall in the middle of the work, and one at its very end', async () => {
    const middle = await watchEventLoop(async () => {
      await new Promise((resolve) => { setTimeout(resolve, 20); });
      busy(150);
      await new Promise((resolve) => { setTimeout(resolve, 20); });
      return 'done';
    });
    expect(middle.value).toBe('done');
    // The sampling period is the precision; a busy machine only adds to the stall.
    expect(middle.blockedMs).toBeGreaterThanOrEqual(150 - loopSampleMs);
    const atTheEnd = await watchEventLoop(() => {
      busy(120);
      return Promise.resolve();
    });
    expect(atTheEnd.blockedMs).toBeGreaterThanOrEqual(120 - loopSampleMs);
  });

  it('measures next to nothing for work that only waits', async () => {
    const quiet = await watchEventLoop(() => new Promise((resolve) => { setTimeout(resolve, 100); }));
    expect(quiet.blockedMs).toBeLessThan(50);
  });
});
