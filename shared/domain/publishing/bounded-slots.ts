/** One bound a slot counts against: at most `limit` slots are held under `key` at once. */
export interface SlotBound {
  key: string;
  limit: number;
}

interface Waiter {
  bounds: readonly SlotBound[];
  /** Lower goes first; equal ranks in the order they asked. */
  rank: number;
  grant: (release: () => void) => void;
}

/**
 * Slots that each count against several bounds at once (a pool, a platform, an account): a slot
 * is given when every bound it names has room. Waiters are served by rank, then in the order they
 * asked, except that one whose bound is full lets the next ones that fit go first: an account or a
 * platform at its limit holds back only the slots that need it, never the others.
 */
export class BoundedSlots {
  readonly #held = new Map<string, number>();
  #waiting: Waiter[] = [];

  /**
   * Resolves with the slot's release (safe to call more than once) when every bound has room and
   * no waiter of a lower `rank` that fits is still waiting.
   */
  take(bounds: readonly SlotBound[], rank = 0): Promise<() => void> {
    return new Promise((resolve) => {
      const waiter = { bounds, rank, grant: resolve };
      // Every release serves the waiters that fit, so none that fits is waiting now: a newcomer
      // that fits passes no one who could have gone.
      if (this.#fits(bounds)) {
        this.#give(waiter);
        return;
      }
      const after = this.#waiting.findIndex((waiting) => waiting.rank > rank);
      if (after === -1) this.#waiting.push(waiter);
      else this.#waiting.splice(after, 0, waiter);
    });
  }

  /** Slots held under `key` now. */
  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Requests waiting now for a slot that counts against `key`. */
  waitingOn(key: string): number {
    return this.#waiting.filter((waiter) => waiter.bounds.some((bound) => bound.key === key)).length;
  }

  #fits(bounds: readonly SlotBound[]): boolean {
    return bounds.every((bound) => this.held(bound.key) < bound.limit);
  }

  #give(waiter: Waiter): void {
    for (const { key } of waiter.bounds) this.#held.set(key, this.held(key) + 1);
    let released = false;
    waiter.grant(() => {
      if (released) return;
      released = true;
      for (const { key } of waiter.bounds) {
        const left = this.held(key) - 1;
        if (left > 0) this.#held.set(key, left);
        // Keys are accounts and platforms without end: one no slot holds is forgotten.
        else this.#held.delete(key);
      }
      this.#serve();
    });
  }

  /** Gives a slot to every waiter that fits now, earliest first. */
  #serve(): void {
    const still: Waiter[] = [];
    for (const waiter of this.#waiting) {
      if (this.#fits(waiter.bounds)) this.#give(waiter);
      else still.push(waiter);
    }
    this.#waiting = still;
  }
}
