import type { Pool } from 'pg';

export const maxFailuresPerWindow = 10;
export const windowSeconds = 15 * 60;

/**
 * Wrong user codes per address, kept in PostgreSQL (the server has no state of its own), so
 * guessing codes through several instances is throttled all the same.
 */
export class VerifyThrottle {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async isBlocked(address: string): Promise<boolean> {
    const result = await this.#pool.query<{ failures: number }>(
      'SELECT failures FROM device_verify_failures WHERE address = $1 AND window_start > now() - make_interval(secs => $2)',
      [address, windowSeconds],
    );
    return (result.rows[0]?.failures ?? 0) >= maxFailuresPerWindow;
  }

  /** One upsert: a new window when the old one is over, else one more failure in it. */
  async recordFailure(address: string): Promise<void> {
    await this.#pool.query(
      `INSERT INTO device_verify_failures (address, window_start, failures) VALUES ($1, now(), 1)
       ON CONFLICT (address) DO UPDATE SET
         failures = CASE WHEN device_verify_failures.window_start <= now() - make_interval(secs => $2) THEN 1 ELSE device_verify_failures.failures + 1 END,
         window_start = CASE WHEN device_verify_failures.window_start <= now() - make_interval(secs => $2) THEN now() ELSE device_verify_failures.window_start END`,
      [address, windowSeconds],
    );
  }

  async deleteOld(): Promise<void> {
    await this.#pool.query('DELETE FROM device_verify_failures WHERE window_start <= now() - make_interval(secs => $1)', [windowSeconds]);
  }
}
