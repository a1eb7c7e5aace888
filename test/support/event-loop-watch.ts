/** How often the watch's timer samples the loop: the precision of every measurement. */
export const loopSampleMs = 5;

export interface Watched<T> {
  value: T;
  /**
   * The longest stretch the event loop of this process spent working without reaching its timers,
   * in ms of the main thread's CPU time.
   */
  blockedMs: number;
}

/** The main thread's CPU time so far, in ms. */
function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/**
 * A chain of timers, each `loopSampleMs` after the previous one ran, that notes at each firing how
 * long the loop took to come back to it: the longest wait, counted in the main thread's CPU time
 * and never more than the wall-clock time it took.
 */
class LoopSampler {
  fired = 0;
  longestMs = 0;
  private last = { wallMs: performance.now(), cpuMs: threadCpuMs() };
  private timer: NodeJS.Timeout;

  constructor() {
    this.timer = setTimeout(() => { this.fire(); }, loopSampleMs);
  }

  /** Resolves once the timer has fired `ticks` more times: the loop got that far. */
  async ticks(count: number): Promise<void> {
    const target = this.fired + count;
    while (this.fired < target) await new Promise((resolve) => { setTimeout(resolve, loopSampleMs); });
  }

  /** What came before is not the work's: only waits from the next firing on count. */
  forget(): void {
    this.longestMs = 0;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private fire(): void {
    const now = { wallMs: performance.now(), cpuMs: threadCpuMs() };
    const lateMs = now.wallMs - this.last.wallMs - loopSampleMs;
    this.longestMs = Math.max(this.longestMs, Math.min(lateMs, now.cpuMs - this.last.cpuMs));
    this.last = now;
    this.fired += 1;
    this.timer = setTimeout(() => { this.fire(); }, loopSampleMs);
  }
}

/**
 * Runs `work` and measures how long the event loop was blocked meanwhile: the longest time a
 * timer due every `loopSampleMs` waited for the loop, in the CPU time the main thread spent in
 * that wait. A stall counts only once a firing before it and one after it are seen, so the watch
 * waits for two firings before the work starts and two after it ends (a stall at the very end of
 * the work, a response written after a long computation, is measured too).
 *
 * CPU time rather than the clock: on a busy two-core machine the process is now and then not
 * scheduled for a hundred milliseconds and more (other test files, FerretDB, chromium), which
 * the clock counts as a block though the api did nothing; the thread's CPU time counts only what
 * the loop itself ran, which is what a slow input costs. A wait that uses no CPU (a synchronous
 * read of a slow disk) is not counted: what this watches for is work. What is measured is this
 * process's loop: the api in-process, and anything else the test runs meanwhile.
 */
export async function watchEventLoop<T>(work: () => Promise<T>): Promise<Watched<T>> {
  const sampler = new LoopSampler();
  try {
    await sampler.ticks(2);
    sampler.forget();
    const value = await work();
    await sampler.ticks(2);
    return { value, blockedMs: Math.round(Math.max(0, sampler.longestMs)) };
  } finally {
    sampler.stop();
  }
}
