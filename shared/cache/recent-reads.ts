/**
 * Reads of the last `reuseMs`, by key, handed to whoever asks for the same key meanwhile; a read
 * still running is shared too. A read that found nothing or failed (null) is not kept: the next
 * caller reads again. For values a step may use a moment old anyway (it reads them ahead of
 * acting on them), so a burst of steps on one key reads it once instead of once a step.
 */
export class RecentReads<V> {
  readonly #reuseMs: number;
  readonly #maxKeys: number;
  readonly #reads = new Map<string, Promise<V | null>>();

  /**
   * @param reuseMs how long a read is handed on (0: every caller reads).
   * @param maxKeys keys kept at most; beyond it every kept read is dropped.
   */
  constructor(reuseMs: number, maxKeys = 10_000) {
    this.#reuseMs = reuseMs;
    this.#maxKeys = maxKeys;
  }

  get(key: string, read: () => Promise<V | null>): Promise<V | null> {
    if (this.#reuseMs <= 0) return read();
    const recent = this.#reads.get(key);
    if (recent !== undefined) return recent;
    if (this.#reads.size >= this.#maxKeys) this.#reads.clear();
    const reading = read();
    this.#reads.set(key, reading);
    const forget = (): void => {
      if (this.#reads.get(key) === reading) this.#reads.delete(key);
    };
    reading.then((value) => {
      if (value === null) forget();
      else setTimeout(forget, this.#reuseMs).unref();
    }, forget);
    return reading;
  }
}
