import type { Redis } from 'ioredis';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import { clientAddressKey } from '../../shared/net/client-address-key.ts';
import { FixedWindowLimiter } from '../../shared/rate-limit/fixed-window-limiter.ts';

export interface LoginLimits {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
  /** Sign-ups per client address in `signUpWindowSeconds`: each one costs a 32 MiB scrypt. */
  signUpsPerAddress: number;
  signUpWindowSeconds: number;
}

/** Five tries per account and twenty per address every fifteen minutes; ten sign-ups per address an hour. */
export const defaultLoginLimits: LoginLimits = {
  perAccount: 5, perAddress: 20, windowSeconds: 15 * 60, signUpsPerAddress: 10, signUpWindowSeconds: 60 * 60,
};

export type LoginAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts every login attempt per email and per client address, and every sign-up per client
 * address. The email is counted whether or not an account has it, so being throttled says
 * nothing about which emails exist. Keys are digests under the deployment's secret (no email or
 * address is stored in Redis in clear), under the deployment's key prefix (QUEUE_PREFIX), so
 * deployments and test files sharing one Redis never share counters.
 */
export class LoginThrottle {
  readonly #perAccount: FixedWindowLimiter;
  readonly #perAddress: FixedWindowLimiter;
  readonly #signUps: FixedWindowLimiter;
  readonly #secrets: SecretBox;

  constructor(redis: Redis, secrets: SecretBox, keyPrefix: string, limits: LoginLimits = defaultLoginLimits) {
    this.#secrets = secrets;
    const counter = (limit: number, windowSeconds: number, name: string) =>
      new FixedWindowLimiter(redis, { limit, windowSeconds, keyPrefix: `${keyPrefix}:${name}` });
    this.#perAccount = counter(limits.perAccount, limits.windowSeconds, 'dashboard-login:account');
    this.#perAddress = counter(limits.perAddress, limits.windowSeconds, 'dashboard-login:address');
    this.#signUps = counter(limits.signUpsPerAddress, limits.signUpWindowSeconds, 'dashboard-signup:address');
  }

  async admit(email: string, address: string): Promise<LoginAdmission> {
    const account = await this.#perAccount.hit(this.#secrets.digest(`login-account:${email.trim().toLowerCase()}`));
    const client = await this.#perAddress.hit(this.#secrets.digest(`login-address:${clientAddressKey(address)}`));
    const refused = [account, client].filter((decision) => !decision.allowed);
    if (refused.length === 0) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(...refused.map((decision) => decision.resetSeconds)) };
  }

  async admitSignUp(address: string): Promise<LoginAdmission> {
    const decision = await this.#signUps.hit(this.#secrets.digest(`signup-address:${clientAddressKey(address)}`));
    return decision.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: decision.resetSeconds };
  }
}
