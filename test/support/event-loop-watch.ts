import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the histogram's timer samples the loop: the precision of every measurement. */
export const loopSampleMs = 5;

export interface Watched<T> {
  value: T;
  /** The longest stretch the event loop of this process ran without reaching its timers, in ms. */
  blockedMs: number;
}

/** Resolves once the histogram's timer has fired `ticks` more times: the loop got that far. */
async function afterTicks(histogram: { count: number }, ticks: number): Promise<void> {
  const target = histogram.count + ticks;
  while (histogram.count < target) {
    await new Promise((resolve) => { setTimeout(resolve, loopSampleMs); });
  }
}

/**
 * Runs `work` and measures how long the event loop was blocked meanwhile, with Node's
 * monitorEventLoopDelay. The histogram records the time between two firings of its timer, so
 * a stall counts only once a firing before it and one after it are seen: the watch waits for
 * two firings before the work starts and two after it ends (a stall at the very end of the
 * work, a response written after a long computation, is measured too). What is measured is
 * this process's loop: the api in-process, and anything else the test runs meanwhile.
 */
export async function watchEventLoop<T>(work: () => Promise<T>): Promise<Watched<T>> {
  const histogram = monitorEventLoopDelay({ resolution: loopSampleMs });
  histogram.enable();
  try {
    await afterTicks(histogram, 2);
    // What came before is not the work's. A reset forgets the last firing too, so one more
    // firing is awaited: the interval in which the work starts is then recorded.
    histogram.reset();
    await afterTicks(histogram, 1);
    const value = await work();
    await afterTicks(histogram, 2);
    // Each sample is the interval between firings, the sampling period included.
    const blockedMs = Math.max(0, histogram.max / 1e6 - loopSampleMs);
    return { value, blockedMs: Math.round(blockedMs) };
  } finally {
    histogram.disable();
  }
}
