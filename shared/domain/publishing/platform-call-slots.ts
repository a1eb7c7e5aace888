import { findPlatform } from '../../platforms/platforms.ts';
import { BoundedSlots, type SlotBound } from './bounded-slots.ts';

/**
 * The two pools of a worker process's platform calls: `uploads` for publishes that send a video
 * (minutes on YouTube, TikTok or X), `calls` for the rest, so long uploads never hold the slots
 * of text and image posts.
 */
export type CallPool = 'calls' | 'uploads';

/** What one publish asks for (callSlotRequestFor): which pool, platform and account it calls. */
export interface CallSlotRequest {
  /** Who the platform is called as: its slots at a time are bounded (`perAccount`), across both pools. */
  account: string;
  /** The platform's registry identifier. */
  platform: string;
  pool: CallPool;
}

/** A slot held: give it back with `release` (once, however often it is called). */
export interface CallSlot {
  release: () => void;
  /** How long the publish waited for it. */
  waitedMs: number;
}

export interface CallSlotSizes {
  /** Slots of the `calls` pool (PUBLISH_CONCURRENCY). */
  calls: number;
  /** Slots of the `uploads` pool (PUBLISH_UPLOAD_CONCURRENCY). */
  uploads: number;
  /**
   * The operator's bounds per platform and pool (PUBLISH_PLATFORM_CONCURRENCY,
   * PUBLISH_PLATFORM_UPLOAD_CONCURRENCY), in place of the platform definitions' own.
   */
  platforms?: Partial<Record<CallPool, Readonly<Record<string, number>>>>;
  /** Slots one account may hold at once, across both pools (PUBLISH_ACCOUNT_CONCURRENCY); 1 unless told. */
  perAccount?: number;
  /**
   * A publish that waited longer than this for its slot reads its thread again: what it read may
   * have been deleted, moved or edited meanwhile.
   */
  readsFreshMs?: number;
  /**
   * Publishes of one account that may wait for its slots in this process (takeUnlessCrowded);
   * `perAccount` x publishJobsPerCallSlot unless told.
   */
  accountWaiters?: number;
}

/** What a platform's calls took lately, before any was timed: a second. */
const unknownHoldMs = 1_000;
/** A crowded publish comes back after at least this long, and at most this long. */
const crowdedWaitBounds = { minMs: 1_000, maxMs: 60_000 } as const;

/**
 * The publishes of one worker process that may be calling platforms at once. A slot counts
 * against three bounds: its pool's size; its platform's bound in that pool (what the platform's
 * definition documents, `concurrentCalls` / `concurrentUploads`, else half the pool, so one
 * platform that stops answering leaves the other half to the rest); and its account's bound
 * (`perAccount`), so one account's backlog takes a few slots, not all, and the platform sees no
 * more of one account at once than a person posting in a few tabs. A publish reads its thread, then holds a slot until
 * the platform's last answer: reading, and saving and telling of the result after, run beside
 * other publishes' calls instead of holding a slot the platform is not using.
 */
export class PlatformCallSlots {
  readonly #slots = new BoundedSlots();
  readonly #sizes: Readonly<Record<CallPool, number>>;
  readonly #chosen: Partial<Record<CallPool, Readonly<Record<string, number>>>>;
  readonly #perAccount: number;
  readonly #accountWaiters: number;
  /** How long a slot of each platform was held lately (a moving average), to say when to come back. */
  readonly #holdMs = new Map<string, number>();
  /** Told how many upload slots are held whenever that changes (watchUploads). */
  readonly #uploadWatchers: ((held: number) => void)[] = [];
  readonly readsFreshMs: number;

  constructor(sizes: CallSlotSizes) {
    this.#sizes = { calls: sizes.calls, uploads: sizes.uploads };
    this.#chosen = sizes.platforms ?? {};
    this.#perAccount = sizes.perAccount ?? 1;
    this.#accountWaiters = sizes.accountWaiters ?? this.#perAccount * publishJobsPerCallSlot;
    this.readsFreshMs = sizes.readsFreshMs ?? 1_000;
    for (const chosen of Object.values(this.#chosen)) {
      // A misspelt platform would leave its bound silently at the default: refused at start-up.
      const unknown = Object.keys(chosen).filter((platform) => findPlatform(platform) === undefined);
      if (unknown.length > 0) {
        throw new Error(`per-platform concurrency names unknown platforms: ${unknown.join(', ')}`);
      }
    }
  }

  /** How many of `pool`'s slots publishes to `platform` may hold at once. */
  platformLimit(platform: string, pool: CallPool): number {
    const definition = findPlatform(platform);
    const documented = pool === 'calls' ? definition?.concurrentCalls : definition?.concurrentUploads;
    const limit = this.#chosen[pool]?.[platform] ?? documented ?? Math.ceil(this.#sizes[pool] / 2);
    return Math.min(limit, this.#sizes[pool]);
  }

  /**
   * Waits for a slot that fits all three bounds. Waiters are served by `turn` (their
   * organization's turn among its posts due that minute, tenant-turns.ts), then in the order they
   * asked, a waiter whose account or platform is full letting the next ones that fit go first.
   */
  async take(request: CallSlotRequest, turn = 0): Promise<CallSlot> {
    const { pool, platform } = request;
    const bounds: SlotBound[] = [
      { key: `pool ${pool}`, limit: this.#sizes[pool] },
      { key: `platform ${pool} ${platform}`, limit: this.platformLimit(platform, pool) },
      { key: `account ${request.account}`, limit: this.#perAccount },
    ];
    const asked = performance.now();
    const release = await this.#slots.take(bounds, turn);
    const given = performance.now();
    if (pool === 'uploads') this.#tellUploads();
    let released = false;
    const timedRelease = (): void => {
      if (released) return;
      released = true;
      const heldMs = performance.now() - given;
      const before = this.#holdMs.get(platform);
      this.#holdMs.set(platform, before === undefined ? heldMs : before * 0.8 + heldMs * 0.2);
      release();
      if (pool === 'uploads') this.#tellUploads();
    };
    return { release: timedRelease, waitedMs: given - asked };
  }

  /** Calls `listener` with the upload slots held each time a publish takes or gives back one. */
  watchUploads(listener: (held: number) => void): void {
    this.#uploadWatchers.push(listener);
  }

  #tellUploads(): void {
    const held = this.held('uploads');
    for (const listener of this.#uploadWatchers) listener(held);
  }

  /**
   * A slot as `take` gives it, or null at once when the account's slots are all held and
   * `accountWaiters` publishes of it already wait here: the publish then goes back to the queue
   * (crowdedWaitMs) instead of holding one of the process's publish jobs while it waits. A busy
   * account's backlog so waits in Redis, where other organizations' posts pass it by their turn,
   * not in the jobs a worker holds (issue 31).
   */
  async takeUnlessCrowded(request: CallSlotRequest, turn = 0): Promise<CallSlot | null> {
    const account = `account ${request.account}`;
    const crowded = this.#slots.held(account) >= this.#perAccount
      && this.#slots.waitingOn(account) >= this.#accountWaiters;
    return crowded ? null : this.take(request, turn);
  }

  /** When a crowded publish should come back: after the account's waiters, at its platform's recent pace. */
  crowdedWaitMs(request: CallSlotRequest): number {
    const ahead = this.#slots.waitingOn(`account ${request.account}`) + 1;
    const holdMs = this.#holdMs.get(request.platform) ?? unknownHoldMs;
    const waitMs = Math.ceil((ahead * holdMs) / this.#perAccount);
    return Math.min(crowdedWaitBounds.maxMs, Math.max(crowdedWaitBounds.minMs, waitMs));
  }

  /** Slots held now: in a pool, or by one platform in a pool. */
  held(pool: CallPool, platform?: string): number {
    return this.#slots.held(platform === undefined ? `pool ${pool}` : `platform ${pool} ${platform}`);
  }

  /** Publishes waiting for a slot now. */
  get waiting(): number {
    return this.#slots.waiting;
  }
}

/**
 * Publish jobs a worker process takes per slot: while one job reads or writes, another calls.
 * Under load a job spent about half its time in the platform call (29 of 60 ms, 2,000 jobs on
 * 5 slots); 7, 15 or 20 jobs for 5 slots published no faster than 10.
 */
export const publishJobsPerCallSlot = 2;

/**
 * Publish jobs one worker process holds: publishJobsPerCallSlot per calls slot, one per upload slot
 * held (an upload takes minutes beside which its job's reads and writes are nothing), and one more
 * while an upload slot is free, so the next video can come in. Jobs are taken before it is known
 * whether they send a video: holding one job per upload slot, held or not, filled the free ones with
 * text posts waiting for the calls slots, whose reads and writes then crowded the database (2,000
 * text posts on 5 calls slots: 163 jobs/s with 30 jobs held, 206 with 11; docs/performance.md).
 */
export function publishJobsHeld(sizes: Pick<CallSlotSizes, 'calls' | 'uploads'>, uploadsHeld = 0): number {
  const room = uploadsHeld < sizes.uploads ? 1 : 0;
  return sizes.calls * publishJobsPerCallSlot + uploadsHeld + room;
}

/** Keeps a worker's concurrency (BullMQ reads it before taking each job) at publishJobsHeld as uploads come and go. */
export function holdJobsForSlots(
  worker: { concurrency: number },
  slots: PlatformCallSlots,
  sizes: Pick<CallSlotSizes, 'calls' | 'uploads'>,
): void {
  worker.concurrency = publishJobsHeld(sizes, slots.held('uploads'));
  slots.watchUploads((held) => { worker.concurrency = publishJobsHeld(sizes, held); });
}
