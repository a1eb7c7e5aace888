import type { Cluster, Redis } from 'ioredis';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';

/**
 * A Redis client or a cluster's, as shared/queue/redis.ts makes them; named from ioredis itself so
 * the caches stand below the queues and import nothing of theirs.
 */
type RedisConnection = Redis | Cluster;

/**
 * What a cached value depends on, as `<kind>:<id>`: an organization (its API key, its name), an
 * OAuth app (its tokens), a channel, a named API key (its revoke), an organization's webhook
 * endpoints (`webhooks:<organization id>`). A change publishes the topic; every api process drops
 * what depends on it.
 */
export type CacheTopic =
  | `organization:${string}` | `app:${string}` | `channel:${string}` | `api-key:${string}` | `webhooks:${string}`;

/** A cache listening to the bus: drops entries of a topic, or everything when the bus may have missed messages. */
export interface BusListener {
  invalidate(topic: CacheTopic): void;
  invalidateAll(): void;
}

/** The side the domain sees: it says what changed, after the change is stored. */
export interface CacheInvalidation {
  changed(topics: readonly CacheTopic[]): Promise<void>;
}

/** Where no api process can have cached anything (a test without an api): changes go untold. */
export const noCache: CacheInvalidation = { changed: () => Promise.resolve() };

const busChannel = (prefix: string): string => `${prefix}:cache-invalidation`;

/** A process that caches nothing itself (a script) but changes what api processes may have cached. */
export class InvalidationPublisher implements CacheInvalidation {
  readonly #redis: RedisConnection;
  readonly #channel: string;

  constructor(redis: RedisConnection, prefix: string) {
    this.#redis = redis;
    this.#channel = busChannel(prefix);
  }

  async changed(topics: readonly CacheTopic[]): Promise<void> {
    if (topics.length > 0) await this.#redis.publish(this.#channel, topics.join(','));
  }
}

const topicPattern = /^(organization|app|channel|api-key|webhooks):[0-9a-f]{24}$/;

/**
 * Cache invalidation across api processes over Redis pub/sub. Caches are trusted only while this
 * process's subscription is live: a subscriber that lost its connection may have missed
 * messages, so while it is down every listener is emptied and `live` is false (callers read
 * through), and the subscription is made again before `live` turns true.
 */
export class InvalidationBus implements CacheInvalidation {
  readonly #publisher: RedisConnection;
  readonly #subscriber: RedisConnection;
  readonly #channel: string;
  readonly #logger: Logger;
  readonly #listeners: BusListener[] = [];
  #live = false;
  #closed = false;

  constructor(deps: { publisher: RedisConnection; subscriber: RedisConnection; prefix: string; logger: Logger }) {
    this.#publisher = deps.publisher;
    this.#subscriber = deps.subscriber;
    this.#channel = busChannel(deps.prefix);
    this.#logger = deps.logger;
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      for (const topic of message.split(',')) {
        if (topicPattern.test(topic)) this.#drop(topic as CacheTopic);
      }
    });
    // ioredis resubscribes by itself after a reconnect, but messages sent meanwhile are lost.
    this.#subscriber.on('close', () => { this.#goDown(); });
    this.#subscriber.on('ready', () => { void this.#subscribe(); });
    // On a Redis Cluster the subscription lives on one node, and when that node fails ioredis
    // moves it to another without a 'close': a node leaving (only a cluster emits '-node') may
    // have taken messages with it, so the caches are emptied and the subscription confirmed again.
    this.#subscriber.on('-node', () => {
      this.#goDown();
      void this.#subscribe();
    });
  }

  /** True while this process hears every change; caches store and answer only then. */
  get live(): boolean {
    return this.#live;
  }

  listen(listener: BusListener): void {
    this.#listeners.push(listener);
  }

  /** Subscribes before the api serves; resolves once changes are heard. */
  async start(): Promise<void> {
    await this.#subscribe();
  }

  /**
   * Drops the topics here at once (this process's next request sees the change), then tells the
   * other processes. Throws when Redis cannot take the message, so the caller reports the change
   * as not fully applied instead of leaving other processes with a stale cache unknowingly.
   */
  async changed(topics: readonly CacheTopic[]): Promise<void> {
    if (topics.length === 0) return;
    for (const topic of topics) this.#drop(topic);
    await this.#publisher.publish(this.#channel, topics.join(','));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#goDown();
    await this.#subscriber.quit().catch((error: unknown) => {
      this.#logger.warn({ event: LogEvent.workerError, err: error }, 'closing the cache subscriber failed');
    });
  }

  async #subscribe(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#subscriber.subscribe(this.#channel);
      // Anything cached before the subscription was made again may be stale: start empty.
      for (const listener of this.#listeners) listener.invalidateAll();
      this.#live = this.#subscriber.status === 'ready';
    } catch (error) {
      this.#goDown();
      this.#logger.warn({ event: LogEvent.workerError, err: error }, 'cache invalidation: subscribing failed');
      // A cluster that stays up while its subscriber moves emits no 'ready' to try again on.
      if (this.#subscriber.status === 'ready') setTimeout(() => { void this.#subscribe(); }, 1_000).unref();
    }
  }

  #goDown(): void {
    this.#live = false;
    for (const listener of this.#listeners) listener.invalidateAll();
  }

  #drop(topic: CacheTopic): void {
    for (const listener of this.#listeners) listener.invalidate(topic);
  }
}
