/** Thrown instead of queueing when the limiter is full: the caller answers 503 at once. */
export class PasswordWorkBusy extends Error {
  constructor() {
    // For the log and programmers only: the login and sign-up pages say "busy" in the reader's words.
    super('too many password checks are running or waiting'); // not-ui-text
    this.name = 'PasswordWorkBusy';
  }
}

export interface PasswordWorkLimits {
  /** Tasks running at once. Each scrypt holds 32 MiB and a libuv thread (Node has 4 by default). */
  running: number;
  /** Tasks waiting for a slot; one more is turned away. */
  waiting: number;
}

/**
 * Bounds the sign-ups and logins that hash a password at one time. Without it a flood of
 * sign-ups queues scrypt work without end: memory grows with every waiting request and the
 * libuv threads that file and DNS work also need stay busy. Past `running + waiting`, callers
 * get PasswordWorkBusy before any hashing starts.
 */
export class PasswordWorkLimiter {
  readonly #limits: PasswordWorkLimits;
  readonly #queue: (() => void)[] = [];
  #running = 0;

  constructor(limits: PasswordWorkLimits) {
    this.#limits = limits;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limits.running) {
      if (this.#queue.length >= this.#limits.waiting) throw new PasswordWorkBusy();
      // The slot is handed over by the task that finishes, so #running never overshoots.
      await new Promise<void>((resolve) => { this.#queue.push(resolve); });
    } else {
      this.#running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      if (next === undefined) this.#running -= 1;
      else next();
    }
  }
}
