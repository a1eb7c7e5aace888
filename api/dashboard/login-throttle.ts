import type { Redis } from 'ioredis';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import { FixedWindowLimiter } from '../../shared/rate-limit/fixed-window-limiter.ts';

export interface LoginLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

/** Five tries per account and twenty per address every fifteen minutes. */
export const defaultLoginLimits: LoginLimits = { perAccount: 5, perAddress: 20, windowSeconds: 15 * 60 };

export type LoginAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts every login attempt per email and per client address. The email is counted whether or
 * not an account has it, so being throttled says nothing about which emails exist. Keys are
 * digests under the deployment's secret: no email or address is stored in Redis in clear, and
 * deployments (and test runs) sharing one Redis never share counters.
 */
export class LoginThrottle {
  readonly #perAccount: FixedWindowLimiter;
  readonly #perAddress: FixedWindowLimiter;
  readonly #secrets: SecretBox;

  constructor(redis: Redis, secrets: SecretBox, limits: LoginLimits = defaultLoginLimits) {
    this.#secrets = secrets;
    this.#perAccount = new FixedWindowLimiter(redis, { limit: limits.perAccount, windowSeconds: limits.windowSeconds, keyPrefix: 'sps:dashboard-login:account' });
    this.#perAddress = new FixedWindowLimiter(redis, { limit: limits.perAddress, windowSeconds: limits.windowSeconds, keyPrefix: 'sps:dashboard-login:address' });
  }

  async admit(email: string, address: string): Promise<LoginAdmission> {
    const account = await this.#perAccount.hit(this.#secrets.digest(`login-account:${email.trim().toLowerCase()}`));
    const client = await this.#perAddress.hit(this.#secrets.digest(`login-address:${address}`));
    const refused = [account, client].filter((decision) => !decision.allowed);
    if (refused.length === 0) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(...refused.map((decision) => decision.resetSeconds)) };
  }
}
