import type { RedisConnection } from '../../shared/queue/redis.ts';
import { z } from 'zod';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import { clientAddressKey } from '../../shared/net/client-address-key.ts';
import { FixedWindowLimiter } from '../middleware/fixed-window-limiter.ts';

export interface LoginLimits {
  /** Wrong passwords for one email from one client address in a window; then that pair waits. */
  failuresPerPair: number;
  /** Wrong passwords from one client address, whatever the emails, in a window; then the address waits. */
  failuresPerAddress: number;
  /**
   * Wrong passwords for one email from all addresses in a window before it counts as under attack.
   * It only slows: from then on each address gets `failuresPerPairUnderAttack` for that email, so a
   * guesser with many addresses gets few tries from each, while an address that has not failed
   * (the owner's, as a rule) still gets its try.
   */
  failuresPerAccount: number;
  failuresPerPairUnderAttack: number;
  windowSeconds: number;
  /** Sign-ups per client address in `signUpWindowSeconds`: each one costs a 32 MiB scrypt. */
  signUpsPerAddress: number;
  signUpWindowSeconds: number;
}

/** Wrong passwords per 15 minutes: 5 per email and address, 20 per address, 100 per email. 10 sign-ups an hour. */
export const defaultLoginLimits: LoginLimits = {
  failuresPerPair: 5,
  failuresPerAddress: 20,
  failuresPerAccount: 100,
  failuresPerPairUnderAttack: 1,
  windowSeconds: 15 * 60,
  signUpsPerAddress: 10,
  signUpWindowSeconds: 60 * 60,
};

export type LoginAdmission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A password check run within the limits: refused before it ran, or its result (null: wrong). */
export type ThrottledCheck<User> = Extract<LoginAdmission, { allowed: false }> | { allowed: true; user: User | null };

/**
 * KEYS: the pair's, the address's and the account's counters. ARGV: the window (ms), the pair's
 * limit, the pair's limit while the account is under attack, the address's limit, the account's.
 * Takes one from each counter, or none when a limit is reached; answers 0 when taken, else the
 * refusing counter's remaining milliseconds. One script, so racing attempts cannot both take the last one.
 */
const takeScript = `
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCR', key)
  if counts[i] == 1 or redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[1]) end
end
local pairLimit = tonumber(ARGV[2])
if counts[3] > tonumber(ARGV[5]) then pairLimit = tonumber(ARGV[3]) end
local over = 0
if counts[1] > pairLimit then over = 1 elseif counts[2] > tonumber(ARGV[4]) then over = 2 end
if over == 0 then return 0 end
for _, key in ipairs(KEYS) do redis.call('DECR', key) end
return math.max(redis.call('PTTL', KEYS[over]), 1)
`;

/** Gives back what takeScript took; a counter whose window ended meanwhile is left alone. */
const giveBackScript = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`;

const takeAnswer = z.number().int().min(0);

/**
 * Throttles dashboard logins by wrong passwords, per (email, client address) pair and per client
 * address, with a large per-email budget that only slows: a stranger failing for someone's email
 * throttles the stranger's address, never the owner's right password from an address that has not
 * failed. An attempt takes one from each counter before the password is checked (so guesses sent
 * at once cannot all pass) and gives it back when the password was right: only failures stay
 * counted. Sign-ups are counted per client address, every one.
 *
 * The email is counted whether or not an account has it, so being throttled says nothing about
 * which emails exist. Keys are digests under the deployment's secret (no email or address is
 * stored in Redis in clear), under the deployment's key prefix (QUEUE_PREFIX), so deployments and
 * test files sharing one Redis never share counters.
 */
export class LoginThrottle {
  readonly #redis: RedisConnection;
  readonly #secrets: SecretBox;
  readonly #keyPrefix: string;
  readonly #limits: LoginLimits;
  readonly #signUps: FixedWindowLimiter;

  constructor(redis: RedisConnection, secrets: SecretBox, keyPrefix: string, limits: LoginLimits = defaultLoginLimits) {
    this.#redis = redis;
    this.#secrets = secrets;
    this.#keyPrefix = keyPrefix;
    this.#limits = limits;
    this.#signUps = new FixedWindowLimiter(redis, {
      limit: limits.signUpsPerAddress,
      windowSeconds: limits.signUpWindowSeconds,
      keyPrefix: `${keyPrefix}:dashboard-signup:address`,
    });
  }

  /** Runs `check` (null: a wrong password) unless a limit is reached; only a wrong password stays counted. */
  async checkPassword<User>(
    email: string,
    address: string,
    check: () => Promise<User | null>,
  ): Promise<ThrottledCheck<User>> {
    const keys = this.#keys(email, address);
    const limits = this.#limits;
    const answer = takeAnswer.parse(await this.#redis.eval(
      takeScript, keys.length, ...keys, limits.windowSeconds * 1000, limits.failuresPerPair,
      limits.failuresPerPairUnderAttack, limits.failuresPerAddress, limits.failuresPerAccount,
    ));
    if (answer > 0) return { allowed: false, retryAfterSeconds: Math.ceil(answer / 1000) };
    let wrong = false;
    try {
      const user = await check();
      wrong = user === null;
      return { allowed: true, user };
    } finally {
      // A right password, or a check that never ran to the end (the server busy), is no failure.
      if (!wrong) await this.#redis.eval(giveBackScript, keys.length, ...keys);
    }
  }

  async admitSignUp(address: string): Promise<LoginAdmission> {
    const decision = await this.#signUps.hit(this.#secrets.digest(`signup-address:${clientAddressKey(address)}`));
    return decision.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: decision.resetSeconds };
  }

  /**
   * The pair's, the address's and the account's counters, in takeScript's order. One script
   * touches all three, so on a Redis Cluster they must live in one slot: they share the hash tag
   * `{dashboard-login}` (three counters have no other value in common). Every login counter is
   * therefore on one primary, a few small keys per attempt; a single Redis ignores the braces.
   */
  #keys(email: string, address: string): [string, string, string] {
    const account = email.trim().toLowerCase();
    const client = clientAddressKey(address);
    const key = (kind: string, value: string) =>
      `${this.#keyPrefix}:{dashboard-login}:${kind}:${this.#secrets.digest(`login-${kind}:${value}`)}`;
    return [key('pair', JSON.stringify([account, client])), key('address', client), key('account', account)];
  }
}
