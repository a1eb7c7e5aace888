import type { BusListener, CacheTopic } from './invalidation-bus.ts';

/** What a cache needs of the bus: whether it hears every change now, and a way to be told of them. */
export interface InvalidationSource {
  readonly live: boolean;
  listen(listener: BusListener): void;
}

/** A value as its loader read it, with the topics whose change makes it stale. */
export interface Loaded<V> {
  value: V;
  topics: readonly CacheTopic[];
}

interface Entry<V> extends Loaded<V> {
  expiresAt: number;
}

export interface CacheOptions {
  /** Longest an entry is trusted, even with no change heard (0: no caching at all). */
  ttlMs: number;
  /** Oldest entries go first beyond this many. */
  maxEntries: number;
  now?: () => number;
}

/**
 * A read-through cache in one process, emptied of a topic's entries whenever the bus says the
 * topic changed. A value read from the database while a change was heard is returned but not
 * stored (it may predate the change); nothing is stored or answered while the bus is not live.
 */
export class InvalidatedCache<V> implements BusListener {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #source: InvalidationSource;
  readonly #options: Required<CacheOptions>;
  /** Bumped by every invalidation, so a load that overlapped one does not store what it read. */
  #generation = 0;

  constructor(source: InvalidationSource, options: CacheOptions) {
    this.#source = source;
    this.#options = { now: Date.now, ...options };
    source.listen(this);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value, else the loader's (null: nothing to cache, e.g. an unknown credential). */
  async get(key: string, load: () => Promise<Loaded<V> | null>): Promise<V | null> {
    const usable = this.#options.ttlMs > 0 && this.#source.live;
    if (usable) {
      const hit = this.#entries.get(key);
      if (hit !== undefined && hit.expiresAt > this.#options.now()) return hit.value;
      if (hit !== undefined) this.#entries.delete(key);
    }
    const generation = this.#generation;
    const loaded = await load();
    if (loaded === null) return null;
    // The bus may have gone down while the value was read: what it missed could concern this value.
    if (usable && generation === this.#generation && this.#stillLive()) this.#store(key, loaded);
    return loaded.value;
  }

  invalidate(topic: CacheTopic): void {
    this.#generation += 1;
    for (const [key, entry] of this.#entries) {
      if (entry.topics.includes(topic)) this.#entries.delete(key);
    }
  }

  invalidateAll(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  #stillLive(): boolean {
    return this.#source.live;
  }

  #store(key: string, loaded: Loaded<V>): void {
    this.#entries.delete(key);
    this.#entries.set(key, { ...loaded, expiresAt: this.#options.now() + this.#options.ttlMs });
    // A Map iterates in insertion order: the first key is the oldest entry.
    while (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}
