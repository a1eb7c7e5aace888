import { describe, expect, it } from 'vitest';
import { loopSampleMs, watchEventLoop } from '../support/event-loop-watch.ts';

const threadCpuMs = (): number => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** Keeps the loop busy for `ms` of CPU time, as a slow regular expression or a long count would. */
function busy(ms: number): void {
  const until = threadCpuMs() + ms;
  while (threadCpuMs() < until) { /* the stall itself */ }
}

/** Holds the loop for `ms` without working, as a process the machine does not schedule is held. */
function held(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
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
    // The sampling period is the precision.
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

  it('does not count a hold in which the loop did no work: the machine\'s, not the input\'s', async () => {
    const paused = await watchEventLoop(() => {
      held(200);
      return Promise.resolve();
    });
    expect(paused.blockedMs).toBeLessThan(50);
    // The same length of work is counted whole.
    const working = await watchEventLoop(() => {
      busy(200);
      return Promise.resolve();
    });
    expect(working.blockedMs).toBeGreaterThanOrEqual(200 - loopSampleMs);
  });
});
