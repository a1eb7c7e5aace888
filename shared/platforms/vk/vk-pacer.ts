import { setTimeout as sleep } from 'node:timers/promises';

/** One call's place in a token's window: when it was sent, then when its answer came. */
interface PacedCall {
  at: number;
  answered: boolean;
}

/**
 * Keeps one token's method calls under VK's cap of 3 a second for a user key
 * (open-and-community.md 5.7): a post with photos makes several calls in a row, and the fourth
 * within a second would be refused with error 6. A call counts from its answer, not from its
 * sending: VK counted it when it arrived, which was before the answer, however slow the way
 * there. One process paces its own calls; calls from another worker that still hit the cap come
 * back as error 6 and wait a second.
 */
export class VkPacer {
  readonly #callsPerWindow: number;
  readonly #windowMs: number;
  readonly #calls = new Map<string, PacedCall[]>();

  constructor(callsPerWindow = 3, windowMs = 1_050) {
    this.#callsPerWindow = callsPerWindow;
    this.#windowMs = windowMs;
  }

  /** Runs `call` once this token may make another call, counting it until its answer is in. */
  async paced<T>(token: string, call: () => Promise<T>): Promise<T> {
    const now = Date.now();
    this.#forgetIdle(now);
    const recent = (this.#calls.get(token) ?? []).filter((entry) => !entry.answered || entry.at > now - this.#windowMs);
    // A call still waiting for its answer counts as answered no earlier than now.
    const latest = recent.map((entry) => (entry.answered ? entry.at : Math.max(entry.at, now))).sort((a, b) => b - a);
    const blocking = latest[this.#callsPerWindow - 1];
    const at = blocking === undefined ? now : Math.max(now, blocking + this.#windowMs);
    const entry: PacedCall = { at, answered: false };
    recent.push(entry);
    this.#calls.set(token, recent);
    // A timer may fire a millisecond before the wall clock reaches its mark: wait again for the rest.
    for (let left = entry.at - now; left > 0; left = entry.at - Date.now()) await sleep(left);
    try {
      return await call();
    } finally {
      entry.at = Math.max(entry.at, Date.now());
      entry.answered = true;
    }
  }

  /** Tokens whose calls all left the window hold nothing worth keeping. */
  #forgetIdle(now: number): void {
    for (const [token, entries] of this.#calls) {
      const idle = entries.every((entry) => entry.answered && entry.at <= now - this.#windowMs);
      if (idle) this.#calls.delete(token);
    }
  }
}
