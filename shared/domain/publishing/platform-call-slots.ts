import { Semaphore } from 'async-mutex';

/** A slot held: give it back with `release` (once, however often it is called). */
export interface CallSlot {
  release: () => void;
  /** How long the publish waited for it. */
  waitedMs: number;
}

/**
 * The publishes of one worker process that may be calling platforms at once (PUBLISH_CONCURRENCY).
 * A publish reads its thread, then holds a slot until the platform's last answer: reading, and
 * saving and telling of the result after, run beside other publishes' calls instead of holding
 * a slot the platform is not using (under load, about half of a job's time).
 */
export class PlatformCallSlots {
  readonly #semaphore: Semaphore;
  readonly readsFreshMs: number;

  /**
   * @param readsFreshMs a publish that waited longer than this for its slot reads its thread
   *   again: what it read may have been deleted, moved or edited meanwhile.
   */
  constructor(size: number, readsFreshMs = 1_000) {
    this.#semaphore = new Semaphore(size);
    this.readsFreshMs = readsFreshMs;
  }

  /** Waits for a slot, in the order asked. */
  async take(): Promise<CallSlot> {
    const asked = performance.now();
    const [, release] = await this.#semaphore.acquire();
    return { release, waitedMs: performance.now() - asked };
  }
}

/**
 * Publish jobs a worker process takes per slot: while one job reads or writes, another calls.
 * Under load a job spent about half its time in the platform call (29 of 60 ms, 2,000 jobs on
 * 5 slots); 7, 15 or 20 jobs for 5 slots published no faster than 10.
 */
export const publishJobsPerCallSlot = 2;
