import type { Pool } from 'pg';
import { clientAddressKey } from '../shared/net/client-address-key.ts';

export interface ThrottleRule {
  /** Which counter: rules share one table, each its own rows. */
  purpose: 'verify_failure' | 'device_code';
  limit: number;
  windowSeconds: number;
}

/** Ten wrong user codes per address every fifteen minutes: guessing one of 2.6e10 codes stays hopeless. */
export const verifyFailures: ThrottleRule = { purpose: 'verify_failure', limit: 10, windowSeconds: 15 * 60 };

/** Thirty logins started per address every fifteen minutes: plenty for an office behind one NAT. */
export const deviceCodes: ThrottleRule = { purpose: 'device_code', limit: 30, windowSeconds: 15 * 60 };

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A fixed window of counted events per client address (an IPv6 client by its /64), kept in
 * PostgreSQL because the server has no state of its own: counting through several instances
 * adds up all the same. Each step is one statement.
 */
export class AddressThrottle {
  readonly #pool: Pool;
  readonly #rule: ThrottleRule;

  constructor(pool: Pool, rule: ThrottleRule) {
    this.#pool = pool;
    this.#rule = rule;
  }

  /** Counts one event (a new window when the old one is over) and says whether it was within the limit. */
  async hit(address: string): Promise<ThrottleVerdict> {
    const result = await this.#pool.query<{ hits: number; retry_after: number }>(
      `INSERT INTO address_throttle AS t (purpose, address, window_start, hits) VALUES ($1, $2, now(), 1)
       ON CONFLICT (purpose, address) DO UPDATE SET
         hits = CASE WHEN t.window_start <= now() - make_interval(secs => $3) THEN 1 ELSE t.hits + 1 END,
         window_start = CASE WHEN t.window_start <= now() - make_interval(secs => $3) THEN now() ELSE t.window_start END
       RETURNING hits, ceil(extract(epoch FROM window_start + make_interval(secs => $3) - now()))::int AS retry_after`,
      [this.#rule.purpose, clientAddressKey(address), this.#rule.windowSeconds],
    );
    const row = result.rows[0];
    if (row === undefined) throw new Error('the throttle upsert returned no row');
    if (row.hits <= this.#rule.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, row.retry_after) };
  }

  /**
   * Gives back one event `hit` counted that turned out not to count (a right user code). A rule on
   * failures counts first and refunds after, so the count and the limit are one statement: guesses
   * sent in parallel cannot all pass a check read before any of them was counted.
   */
  async refund(address: string): Promise<void> {
    await this.#pool.query(
      `UPDATE address_throttle SET hits = hits - 1
       WHERE purpose = $1 AND address = $2 AND hits > 0 AND window_start > now() - make_interval(secs => $3)`,
      [this.#rule.purpose, clientAddressKey(address), this.#rule.windowSeconds],
    );
  }

  /** Drops the windows that are over; returns how many. */
  async deleteOld(): Promise<number> {
    const result = await this.#pool.query(
      'DELETE FROM address_throttle WHERE purpose = $1 AND window_start <= now() - make_interval(secs => $2)',
      [this.#rule.purpose, this.#rule.windowSeconds],
    );
    return result.rowCount ?? 0;
  }
}
