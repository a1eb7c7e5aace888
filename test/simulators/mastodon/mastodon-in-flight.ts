/**
 * The status creations (POST /api/v1/statuses) a Mastodon simulator is handling now, in all and
 * per account, the most it saw at once, and a hold: while held, every creation waits before it
 * is handled, so a test sees how many a client has in flight at once without timing anything.
 */
export class StatusesInFlight {
  #now = 0;
  #most = 0;
  #mostOnOneAccount = 0;
  readonly #perAccount = new Map<string, number>();
  #held: { released: Promise<void>; release: () => void } | null = null;

  /** Creations being handled now. */
  get now(): number {
    return this.#now;
  }

  /** The most creations handled at once since the simulator started. */
  get most(): number {
    return this.#most;
  }

  /** The most creations of one account handled at once since the simulator started. */
  get mostOnOneAccount(): number {
    return this.#mostOnOneAccount;
  }

  /** Creations wait until the function returned is called; calling it again does nothing. */
  hold(): () => void {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => { release = resolve; });
    const held = { released, release };
    this.#held = held;
    return () => {
      if (this.#held === held) this.#held = null;
      held.release();
    };
  }

  /** Handles one creation of `accountId`, counted from its start to its answer, past the hold. */
  async handle<T>(accountId: string, creation: () => Promise<T>): Promise<T> {
    this.#now += 1;
    const ofAccount = (this.#perAccount.get(accountId) ?? 0) + 1;
    this.#perAccount.set(accountId, ofAccount);
    this.#most = Math.max(this.#most, this.#now);
    this.#mostOnOneAccount = Math.max(this.#mostOnOneAccount, ofAccount);
    try {
      await this.#held?.released;
      return await creation();
    } finally {
      this.#now -= 1;
      this.#perAccount.set(accountId, (this.#perAccount.get(accountId) ?? 1) - 1);
    }
  }
}
