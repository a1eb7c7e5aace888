import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from '../../test/browser/dashboard-client.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/** A different, made-up left-most X-Forwarded-For entry on every call: what a forger rotates. */
const forged = (): string => `203.0.113.${String(randomBytes(1)[0])}`;

/** Each login and sign-up runs a 32 MiB scrypt: on a busy 2-core machine, 20 in a row can take half a minute. */
const hashingTimeoutMs = 120_000;

const wrongLogin = (client: DashboardClient) =>
  client.logIn({ email: newAccount('guess').email, password: 'wrong password!' });

describe('dashboard logins and sign-ups, counted per client address', () => {
  describe('clients connecting directly (TRUST_PROXY_HOPS=0)', () => {
    let ctx: TestContext;
    let stack: RunningStack;
    beforeAll(async () => {
      ctx = await createTestContext({ TRUST_PROXY_HOPS: '0' });
      stack = await startStack(ctx, { workers: false });
    });
    afterAll(async () => {
      await stack.close();
      await ctx.cleanup();
    });

    it('a rotating X-Forwarded-For does not escape the per-address login limit', async () => {
      for (let attempt = 1; attempt <= 20; attempt += 1) {
        const answer = await wrongLogin(new DashboardClient(stack.baseUrl, { address: forged() }));
        expect(answer.status).toBe(400);
        expect(answer.html).toContain('The email or the password is wrong.');
      }
      const blocked = await wrongLogin(new DashboardClient(stack.baseUrl, { address: forged() }));
      expect(blocked.status).toBe(429);
      expect(blocked.html).toContain('Too many login attempts');
    }, hashingTimeoutMs);

    it('keeps its counters under the file\'s key prefix (QUEUE_PREFIX), so test files never share them', async () => {
      const redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const prefix = ctx.config.QUEUE_PREFIX;
        const [, keys] = await redis.scan('0', 'MATCH', `${prefix}:{dashboard-login}:*`, 'COUNT', 10_000);
        expect(keys.some((key) => key.startsWith(`${ctx.config.QUEUE_PREFIX}:{dashboard-login}:address:`))).toBe(true);
        expect(keys.some((key) => key.startsWith(`${ctx.config.QUEUE_PREFIX}:{dashboard-login}:account:`))).toBe(true);
      } finally {
        await redis.quit();
      }
    });
  });

  describe('behind one proxy (TRUST_PROXY_HOPS=1)', () => {
    let ctx: TestContext;
    let stack: RunningStack;
    beforeAll(async () => {
      ctx = await createTestContext({ TRUST_PROXY_HOPS: '1' });
      stack = await startStack(ctx, { workers: false });
    });
    afterAll(async () => {
      await stack.close();
      await ctx.cleanup();
    });

    /** A client behind the proxy: the proxy appends its real address after whatever the client wrote. */
    const behindProxy = (address: string) => new DashboardClient(stack.baseUrl, { address: `${forged()}, ${address}` });

    it('counts logins by the right-most X-Forwarded-For entry: two clients behind it are throttled apart', async () => {
      const neighbour = newAccount('neighbour');
      expect((await behindProxy('198.51.100.2').signUp(neighbour)).status).toBe(302);
      for (let attempt = 1; attempt <= 20; attempt += 1) {
        expect((await wrongLogin(behindProxy('198.51.100.1'))).status).toBe(400);
      }
      const blocked = await wrongLogin(behindProxy('198.51.100.1'));
      expect(blocked.status).toBe(429);
      expect(blocked.html).toContain('Too many login attempts');
      expect((await wrongLogin(behindProxy('198.51.100.2'))).status).toBe(400);
      expect((await behindProxy('198.51.100.2').logIn(neighbour)).location).toBe('/settings');
    }, hashingTimeoutMs);

    const strangerFails = 'a stranger failing for someone\'s email throttles the stranger\'s address, '
      + 'not the owner\'s login';
    it(strangerFails, async () => {
      const victim = newAccount('victim');
      expect((await behindProxy('198.51.100.60').signUp(victim)).status).toBe(302);
      const attacker = () => behindProxy('198.51.100.61');
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        expect((await attacker().logIn({ email: victim.email, password: 'wrong password!' })).status).toBe(400);
      }
      // The attacker's address is done for this email, even when it finds the right password.
      for (const password of ['wrong password!', victim.password]) {
        const refused = await attacker().logIn({ email: victim.email, password });
        expect(refused.status).toBe(429);
        expect(refused.html).toContain('Too many login attempts');
      }
      expect((await behindProxy('198.51.100.60').logIn(victim)).location).toBe('/settings');
      // The owner's own slip is counted for the owner's address alone, like anyone's.
      expect((await behindProxy('198.51.100.60').logIn({ ...victim, password: 'typo password' })).status).toBe(400);
      expect((await behindProxy('198.51.100.62').logIn(victim)).location).toBe('/settings');
    }, hashingTimeoutMs);

    it('throttles sign-ups per address (10 an hour), before any password is hashed', async () => {
      for (let signUp = 1; signUp <= 10; signUp += 1) {
        expect((await behindProxy('198.51.100.40').signUp(newAccount('many'))).status).toBe(302);
      }
      const refused = newAccount('refused');
      const answer = await behindProxy('198.51.100.40').signUp(refused);
      expect(answer.status).toBe(429);
      expect(answer.html).toContain('Too many sign-ups from your address');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(3000);
      expect(await ctx.db.users.countDocuments({ email: refused.email })).toBe(0);
      expect((await behindProxy('198.51.100.41').signUp(refused)).status).toBe(302);
    }, hashingTimeoutMs);

    it('bounds the password hashing a flood of sign-ups can start: the excess is turned away with 503', async () => {
      const clients = Array.from({ length: 40 }, (_, index) => behindProxy(`198.51.101.${index + 1}`));
      await Promise.all(clients.map((client) => client.get('/signup')));
      const accounts = clients.map(() => newAccount('flood'));
      const answers = await Promise.all(clients.map((client, index) => {
        const account = accounts[index] ?? newAccount('flood');
        const { email, password, organization } = account;
        return client.post('/signup', { email, password, organization });
      }));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.every((status) => status === 302 || status === 503)).toBe(true);
      const busy = answers.filter((answer) => answer.status === 503);
      // 2 running and 16 waiting at most: 40 sign-ups at once cannot all be taken (without the bound, all are).
      expect(busy.length).toBeGreaterThan(0);
      for (const answer of busy) {
        expect(answer.html).toContain('The service is busy. Try again in 5 seconds.');
        expect(answer.headers.get('retry-after')).toBe('5');
      }
      const created = await ctx.db.users.countDocuments({ email: { $in: accounts.map((account) => account.email) } });
      expect(created).toBe(40 - busy.length);
      expect(created).toBeGreaterThanOrEqual(2);
    }, hashingTimeoutMs);
  });
});
