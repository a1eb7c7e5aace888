import type { Pool } from 'pg';
import { randomCredential, type SecretBox } from '../shared/crypto/secret-box.ts';
import { newUserCode } from './user-code.ts';

/** Device requests live 15 minutes; the CLI polls every `pollIntervalSeconds`. */
export const requestLifetimeSeconds = 15 * 60;
export const pollIntervalSeconds = 5;

export interface NewDeviceRequest {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
}

/**
 * The device_requests table. Every secret in it (device code, state, access token) is a digest
 * or sealed; every step is one statement, so any instance can take any step.
 */
export class DeviceRequests {
  readonly #pool: Pool;
  readonly #secrets: SecretBox;

  constructor(pool: Pool, secrets: SecretBox) {
    this.#pool = pool;
    this.#secrets = secrets;
  }

  async create(): Promise<NewDeviceRequest> {
    const deviceCode = randomCredential();
    // A clash with a live user code is astronomically rare; the partial unique index catches it and we draw again.
    for (let attempt = 0; ; attempt += 1) {
      const userCode = newUserCode();
      try {
        await this.#pool.query(
          'INSERT INTO device_requests (device_code_digest, user_code, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))',
          [this.#secrets.digest(deviceCode), userCode, requestLifetimeSeconds],
        );
        return { deviceCode, userCode, expiresIn: requestLifetimeSeconds };
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
   * One poll. A completed request hands its token over exactly once: the UPDATE that marks it
   * delivered and clears the sealed token is the only statement that returns it.
   */
  async poll(deviceCode: string): Promise<
    { outcome: 'pending' | 'expired' | 'denied' | 'unknown' } | { outcome: 'token'; accessToken: string; organizationId: string }
  > {
    const digest = this.#secrets.digest(deviceCode);
    const delivered = await this.#pool.query<{ access_token_sealed: string; organization_id: string }>(
      `UPDATE device_requests d SET status = 'delivered', access_token_sealed = NULL
       FROM (SELECT id, access_token_sealed, organization_id FROM device_requests WHERE device_code_digest = $1 AND status = 'complete' AND expires_at > now() FOR UPDATE) old
       WHERE d.id = old.id RETURNING old.access_token_sealed, old.organization_id`,
      [digest],
    );
    const row = delivered.rows[0];
    if (row !== undefined) return { outcome: 'token', accessToken: this.#secrets.open(row.access_token_sealed), organizationId: row.organization_id };
    const current = await this.#pool.query<{ status: string; expired: boolean }>(
      'SELECT status, expires_at <= now() AS expired FROM device_requests WHERE device_code_digest = $1',
      [digest],
    );
    const found = current.rows[0];
    if (found === undefined || found.status === 'delivered') return { outcome: 'unknown' };
    if (found.expired) return { outcome: 'expired' };
    if (found.status === 'denied') return { outcome: 'denied' };
    return { outcome: 'pending' };
  }

  async deleteExpired(): Promise<number> {
    const result = await this.#pool.query('DELETE FROM device_requests WHERE expires_at <= now()');
    return result.rowCount ?? 0;
  }
}
