import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Keeps one token's method calls under VK's cap of 3 a second for a user key
 * (open-and-community.md 5.7): a post with photos makes several calls in a row, and the fourth
 * within a second would be refused with error 6. The window is a little longer than VK's so
 * calls that arrive late do not bunch up there. One process paces its own calls; calls from
 * another worker that still hit the cap come back as error 6 and wait a second.
 */
export class VkPacer {
  readonly #callsPerWindow: number;
  readonly #windowMs: number;
  /** Per token, when its recent calls were (or are to be) sent, oldest first. */
  readonly #sent = new Map<string, number[]>();

  constructor(callsPerWindow = 3, windowMs = 1_100) {
    this.#callsPerWindow = callsPerWindow;
    this.#windowMs = windowMs;
  }

  /** Waits until this token may make another call, and counts that call. */
  async take(token: string): Promise<void> {
    const now = Date.now();
    this.#forgetIdle(now);
    const recent = (this.#sent.get(token) ?? []).filter((time) => time > now - this.#windowMs);
    const blocking = recent[recent.length - this.#callsPerWindow];
    const at = blocking === undefined ? now : Math.max(now, blocking + this.#windowMs);
    recent.push(at);
    this.#sent.set(token, recent);
    if (at > now) await sleep(at - now);
  }

  /** Tokens whose last call left the window hold nothing worth keeping. */
  #forgetIdle(now: number): void {
    for (const [token, times] of this.#sent) {
      const last = times[times.length - 1] ?? 0;
      if (last <= now - this.#windowMs) this.#sent.delete(token);
    }
  }
}
