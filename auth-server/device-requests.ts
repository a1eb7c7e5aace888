import type { Pool } from 'pg';
import { randomCredential, type SecretBox } from '../shared/crypto/secret-box.ts';
import { newUserCode } from './user-code.ts';

/** Device requests live 15 minutes; the CLI polls at the interval each is given (DEVICE_POLL_INTERVAL_SECONDS). */
export const requestLifetimeSeconds = 15 * 60;
/** RFC 8628 section 3.5: each poll that comes too soon answers slow_down and adds this to the interval. */
export const slowDownStepSeconds = 5;
/** A poll up to this much early still counts as on time (timers fire a little early, networks jitter). */
const pollGraceSeconds = 1;
/**
 * After the token is handed over, polls with the same device code get it again for this long, so
 * a CLI whose answer was lost on the way can retry; the row (and the sealed token) then expires.
 */
export const redeliverySeconds = 60;
/** How long an expired request is kept (without its token) so a late poll still hears expired_token. */
export const expiredKeptSeconds = 5 * 60;
/** Live requests across all instances; past it /device/code answers 503 (rows cannot be flooded). */
export const maxLiveRequests = 10_000;

/** The condition, in the poll's UPDATE, for handing the token over (first time or again). */
const handsOver = 'NOT old.too_fast AND NOT old.expired AND old.status IN (\'complete\', \'delivered\')';

export type PollResult =
  | { outcome: 'pending' | 'expired' | 'denied' | 'unknown' }
  | { outcome: 'slow_down'; intervalSeconds: number }
  | { outcome: 'token'; accessToken: string; organizationId: string };

export interface NewDeviceRequest {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  /** Seconds the client waits between polls. */
  interval: number;
}

/**
 * The device_requests table. Every secret in it (device code, state, access token) is a digest
 * or sealed; every step is one statement, so any instance can take any step.
 */
export class DeviceRequests {
  readonly #pool: Pool;
  readonly #secrets: SecretBox;
  readonly #pollIntervalSeconds: number;

  constructor(pool: Pool, secrets: SecretBox, pollIntervalSeconds: number) {
    this.#pool = pool;
    this.#secrets = secrets;
    this.#pollIntervalSeconds = pollIntervalSeconds;
  }

  /** A new request, or null when `maxLiveRequests` are live already. */
  async create(): Promise<NewDeviceRequest | null> {
    const deviceCode = randomCredential();
    // A clash with a live user code is astronomically rare; the partial unique index catches it and we draw again.
    for (let attempt = 0; ; attempt += 1) {
      const userCode = newUserCode();
      try {
        // The count and the insert in one statement; racing inserts can pass the cap by a few, never by a flood.
        const inserted = await this.#pool.query(
          `INSERT INTO device_requests (device_code_digest, user_code, poll_interval, expires_at)
           SELECT $1::text, $2::text, $3::int, now() + make_interval(secs => $4)
           WHERE (SELECT count(*) FROM device_requests WHERE expires_at > now()) < $5::bigint`,
          [
            this.#secrets.digest(deviceCode), userCode, this.#pollIntervalSeconds, requestLifetimeSeconds,
            maxLiveRequests,
          ],
        );
        if (inserted.rowCount !== 1) return null;
        return { deviceCode, userCode, expiresIn: requestLifetimeSeconds, interval: this.#pollIntervalSeconds };
      } catch (error) {
        if (attempt >= 3 || !(error instanceof Error && 'code' in error && error.code === '23505')) throw error;
      }
    }
  }

  /** Binds a fresh, unguessable state to the pending request with this user code; null if none is live. */
  async startAuthorization(userCode: string): Promise<string | null> {
    const state = randomCredential();
    const result = await this.#pool.query(
      'UPDATE device_requests SET state_digest = $1 WHERE user_code = $2 AND status = \'pending\' AND expires_at > now() RETURNING id',
      [this.#secrets.digest(state), userCode],
    );
    return result.rowCount === 1 ? state : null;
  }

  /** The live request a callback's state belongs to. */
  async findByState(state: string): Promise<{ id: string } | null> {
    const result = await this.#pool.query<{ id: string }>(
      'SELECT id FROM device_requests WHERE state_digest = $1 AND status = \'pending\' AND expires_at > now()',
      [this.#secrets.digest(state)],
    );
    return result.rows[0] ?? null;
  }

  async complete(id: string, accessToken: string, organizationId: string): Promise<void> {
    await this.#pool.query(
      'UPDATE device_requests SET status = \'complete\', access_token_sealed = $2, organization_id = $3, state_digest = NULL WHERE id = $1 AND status = \'pending\'',
      [id, this.#secrets.seal(accessToken), organizationId],
    );
  }

  async deny(id: string): Promise<void> {
    await this.#pool.query('UPDATE device_requests SET status = \'denied\', state_digest = NULL WHERE id = $1 AND status = \'pending\'', [id]);
  }

  /**
   * One poll, one statement. It records the poll and, when it came sooner than the request's
   * interval allows, answers slow_down and lengthens the interval (RFC 8628 section 3.5).
   * Otherwise a completed request hands its token over and becomes `delivered`, living on for
   * `redeliverySeconds` during which the same device code gets the same token again: only the
   * CLI that started the login knows the device code, so a retry after a lost answer is safe.
   */
  async poll(deviceCode: string): Promise<PollResult> {
    const result = await this.#pool.query<{
      too_fast: boolean; expired: boolean; status: string; poll_interval: number;
      access_token_sealed: string | null; organization_id: string | null;
    }>(
      `UPDATE device_requests d SET
         last_polled_at = now(),
         poll_interval = d.poll_interval + CASE WHEN old.too_fast THEN $2::int ELSE 0 END,
         status = CASE WHEN ${handsOver} THEN 'delivered' ELSE d.status END,
         expires_at = CASE WHEN ${handsOver} AND old.status = 'complete'
           THEN now() + make_interval(secs => $4) ELSE d.expires_at END,
         access_token_sealed = CASE WHEN old.expired THEN NULL ELSE d.access_token_sealed END
       FROM (
         SELECT id, status, expires_at <= now() AS expired,
           coalesce(last_polled_at > now() - make_interval(secs => poll_interval - $3), false) AS too_fast
         FROM device_requests WHERE device_code_digest = $1 FOR UPDATE
       ) old
       WHERE d.id = old.id
       RETURNING old.too_fast, old.expired, old.status, d.poll_interval, d.access_token_sealed, d.organization_id`,
      [this.#secrets.digest(deviceCode), slowDownStepSeconds, pollGraceSeconds, redeliverySeconds],
    );
    const row = result.rows[0];
    if (row === undefined) return { outcome: 'unknown' };
    if (row.too_fast) return { outcome: 'slow_down', intervalSeconds: row.poll_interval };
    if (row.expired) return { outcome: row.status === 'delivered' ? 'unknown' : 'expired' };
    if (row.status === 'denied') return { outcome: 'denied' };
    if (row.status === 'pending') return { outcome: 'pending' };
    if (row.access_token_sealed === null || row.organization_id === null) {
      throw new Error(`device request in status ${row.status} without a token`);
    }
    const accessToken = this.#secrets.open(row.access_token_sealed);
    return { outcome: 'token', accessToken, organizationId: row.organization_id };
  }

  /**
   * The sweep: an expired request (a delivered one past its redelivery window included) loses its
   * sealed token at once and the row goes `expiredKeptSeconds` later. Returns the rows deleted.
   */
  async deleteExpired(): Promise<number> {
    await this.#pool.query(
      'UPDATE device_requests SET access_token_sealed = NULL '
        + 'WHERE expires_at <= now() AND access_token_sealed IS NOT NULL',
    );
    const result = await this.#pool.query(
      'DELETE FROM device_requests WHERE expires_at <= now() - make_interval(secs => $1)',
      [expiredKeptSeconds],
    );
    return result.rowCount ?? 0;
  }
}
