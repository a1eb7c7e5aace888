import type { Pool } from 'pg';

/** Any fixed number: the advisory lock that serialises schema creation across instances. */
const schemaLockKey = 731_555_201;

/**
 * Creates the tables and indexes if missing. Several instances may start at once: the
 * transaction-scoped advisory lock lets one create while the others wait, then find it done.
 */
export async function ensureSchema(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [schemaLockKey]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS device_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        device_code_digest text NOT NULL UNIQUE,
        user_code text NOT NULL,
        state_digest text UNIQUE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'complete', 'denied', 'delivered')),
        access_token_sealed text,
        organization_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    // Added after the first release: the pacing of polls (RFC 8628 slow_down).
    await client.query(`
      ALTER TABLE device_requests
        ADD COLUMN IF NOT EXISTS poll_interval integer NOT NULL DEFAULT 5,
        ADD COLUMN IF NOT EXISTS last_polled_at timestamptz`);
    await client.query('CREATE UNIQUE INDEX IF NOT EXISTS device_requests_user_code_live ON device_requests (user_code) WHERE status = \'pending\'');
    await client.query('CREATE INDEX IF NOT EXISTS device_requests_expires_at ON device_requests (expires_at)');
    await client.query(`
      CREATE TABLE IF NOT EXISTS address_throttle (
        purpose text NOT NULL,
        address text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (purpose, address)
      )`);
    // The first release's verify-only throttle; address_throttle replaced it (its rows were 15-minute windows).
    await client.query('DROP TABLE IF EXISTS device_verify_failures');
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
