import { setImmediate as nextTurn } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { defaultLoginLimits, LoginThrottle, type LoginLimits } from './login-throttle.ts';

/** Small limits, so each rule is reached in a few calls; the password checks are stand-ins that answer at once. */
const limits: LoginLimits = {
  ...defaultLoginLimits,
  failuresPerPair: 3,
  failuresPerAddress: 6,
  failuresPerAccount: 4,
  failuresPerPairUnderAttack: 1,
};
const wrong = (): Promise<string | null> => Promise.resolve(null);
const right = (): Promise<string | null> => Promise.resolve('the user');

describe('LoginThrottle, on the test Redis', () => {
  let ctx: TestContext;
  let redis: Redis;
  let created = 0;
  /** A throttle with counters of its own, so the tests do not share any. */
  const freshThrottle = () => {
    created += 1;
    return new LoginThrottle(redis, ctx.secrets, `${ctx.config.QUEUE_PREFIX}:throttle-${String(created)}`, limits);
  };

  beforeAll(async () => {
    ctx = await createTestContext();
    redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis.quit();
    await ctx.cleanup();
  });

  it('counts wrong passwords only: right ones, however many, use up no try', async () => {
    const throttle = freshThrottle();
    const address = '198.51.100.1';
    for (let login = 1; login <= 10; login += 1) {
      expect(await throttle.checkPassword('owner@example.test', address, right))
        .toEqual({ allowed: true, user: 'the user' });
    }
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect(await throttle.checkPassword('owner@example.test', address, wrong)).toEqual({ allowed: true, user: null });
    }
    const refused = await throttle.checkPassword('owner@example.test', address, right);
    expect(refused).toMatchObject({ allowed: false });
    expect(refused.allowed ? 0 : refused.retryAfterSeconds).toBeGreaterThan(limits.windowSeconds - 60);
  });

  it('checks no more passwords than the limit when guesses come at once', async () => {
    const throttle = freshThrottle();
    let checked = 0;
    const slowWrong = async (): Promise<string | null> => {
      checked += 1;
      await nextTurn();
      return null;
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => throttle.checkPassword('target@example.test', '198.51.100.2', slowWrong)),
    );
    expect(checked).toBe(3);
    expect(answers.filter((answer) => !answer.allowed)).toHaveLength(17);
  });

  it('gives the try back when the check could not run (the server was busy)', async () => {
    const throttle = freshThrottle();
    const busy = (): Promise<string | null> => Promise.reject(new Error('busy'));
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await expect(throttle.checkPassword('busy@example.test', '198.51.100.3', busy)).rejects.toThrow('busy');
    }
    expect(await throttle.checkPassword('busy@example.test', '198.51.100.3', right)).toMatchObject({ allowed: true });
  });

  it('throttles an address failing for many emails, the right password included', async () => {
    const throttle = freshThrottle();
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      const email = `guess-${String(attempt)}@example.test`;
      expect(await throttle.checkPassword(email, '198.51.100.4', wrong)).toMatchObject({ allowed: true });
    }
    const another = (address: string) => throttle.checkPassword('another@example.test', address, right);
    expect(await another('198.51.100.4')).toMatchObject({ allowed: false });
    expect(await another('198.51.100.5')).toMatchObject({ allowed: true });
  });

  const budgetSpent = 'once an email has used its budget, slows each failing address, '
    + 'never an address that has not failed';
  it(budgetSpent, async () => {
    const throttle = freshThrottle();
    const email = 'popular@example.test';
    for (let client = 11; client <= 14; client += 1) {
      const address = `198.51.100.${String(client)}`;
      expect(await throttle.checkPassword(email, address, wrong)).toMatchObject({ allowed: true });
    }
    // Under the pair limit of 3, but the email is under attack: one failure per address is all.
    expect(await throttle.checkPassword(email, '198.51.100.11', wrong)).toMatchObject({ allowed: false });
    expect(await throttle.checkPassword(email, '198.51.100.20', wrong)).toEqual({ allowed: true, user: null });
    expect(await throttle.checkPassword(email, '198.51.100.20', right)).toMatchObject({ allowed: false });
    expect(await throttle.checkPassword(email, '198.51.100.21', right)).toEqual({ allowed: true, user: 'the user' });
    // The budget is this email's: the failing address still gets its tries for other emails.
    expect(await throttle.checkPassword('other@example.test', '198.51.100.11', wrong)).toMatchObject({ allowed: true });
  });
});
