import type { Database } from '../../shared/db/database.ts';
import { recordKeyUse } from '../../shared/domain/api-keys/api-keys.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { LogEvent } from '../../shared/logging/events.ts';

/** A key's last-used time is precise to this: finer would cost a write per request. */
export const lastUsedPrecisionMs = 60_000;
/** Beyond this many keys remembered, those not written within the precision are forgotten. */
const maxRemembered = 10_000;

/**
 * Last-used times of named API keys, written at most once a minute per key: this process skips
 * keys it wrote within the minute, and the write's filter skips keys another process wrote.
 */
export class KeyUsage {
  readonly #db: Database;
  readonly #writtenAt = new Map<string, number>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** Never fails the request: a lost last-used time is logged, not answered as an error. */
  async touch(keyId: string, now: Date, log: Logger): Promise<void> {
    const previous = this.#writtenAt.get(keyId);
    if (previous !== undefined && now.getTime() - previous < lastUsedPrecisionMs) return;
    this.#remember(keyId, now.getTime());
    try {
      await recordKeyUse(this.#db, keyId, now, lastUsedPrecisionMs);
    } catch (error) {
      this.#writtenAt.delete(keyId);
      log.warn({ event: LogEvent.apiKeyUseNotRecorded, keyId, err: error }, 'could not record the API key\'s last use');
    }
  }

  #remember(keyId: string, at: number): void {
    if (this.#writtenAt.size >= maxRemembered) {
      for (const [id, written] of this.#writtenAt) {
        if (at - written >= lastUsedPrecisionMs) this.#writtenAt.delete(id);
      }
    }
    this.#writtenAt.set(keyId, at);
  }
}
