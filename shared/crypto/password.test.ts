import { describe, expect, it } from 'vitest';
import { hashPassword, passwordHashLogN, unmatchableHash, verifyPassword } from './password.ts';

/** The `N` a stored `scrypt$N$r$p$salt$hash` records. */
function storedN(hash: string): number {
  return Number(hash.split('$')[1]);
}

describe('password hashes', () => {
  it('hashes at the cost asked for (log N 10: N = 1024) and verifies against it', async () => {
    const hash = await hashPassword('correct horse battery', 10);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery!', hash)).toBe(false);
  });

  it('hashes at N = 32768 by default, production\'s cost', async () => {
    expect(passwordHashLogN.default).toBe(15);
    const hash = await hashPassword('correct horse battery');
    expect(storedN(hash)).toBe(32_768);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
  });

  it('verifies a hash at the cost stored with it, whatever the cost of new hashes', async () => {
    const cheap = await hashPassword('an older password', 11);
    const dear = await hashPassword('an older password', 15);
    expect([storedN(cheap), storedN(dear)]).toEqual([2_048, 32_768]);
    // Nothing but the stored hash is given: the parameters are read from it.
    expect(await verifyPassword('an older password', cheap)).toBe(true);
    expect(await verifyPassword('an older password', dear)).toBe(true);
  });

  it('refuses, without throwing or deriving, a stored hash asking for more than N = 2^20, r = 8, p = 1', async () => {
    const real = await hashPassword('a long enough password', 10);
    const [, , , , salt = '', key = ''] = real.split('$');
    const forged = [
      `scrypt$${2 ** 21}$8$1$${salt}$${key}`, // 2 GiB
      `scrypt$${2 ** 30}$8$1$${salt}$${key}`,
      `scrypt$1024$16$1$${salt}$${key}`,
      `scrypt$1024$8$1000000$${salt}$${key}`, // a million times the work
    ];
    for (const stored of forged) {
      const started = performance.now();
      await expect(verifyPassword('a long enough password', stored), stored).resolves.toBe(false);
      expect(performance.now() - started, stored).toBeLessThan(1_000);
    }
  });

  it('refuses malformed parameters with false, not an exception', async () => {
    const real = await hashPassword('a long enough password', 10);
    const [, , , , salt = '', key = ''] = real.split('$');
    for (const [n, r, p] of [['1000', '8', '1'], ['0', '8', '1'], ['1', '8', '1'], ['1024', '0', '1'],
      ['1024', '8', '0'], ['0x400', '8', '1'], ['1e3', '8', '1'], ['', '8', '1'], ['-1024', '8', '1']]) {
      const stored = `scrypt$${n}$${r}$${p}$${salt}$${key}`;
      await expect(verifyPassword('a long enough password', stored), stored).resolves.toBe(false);
    }
    await expect(verifyPassword('a long enough password', 'scrypt$1024$8$1')).resolves.toBe(false);
    await expect(verifyPassword('a long enough password', 'bcrypt$whatever')).resolves.toBe(false);
  });

  it('offers, per cost, a well-formed hash no password matches (the unknown email\'s check)', async () => {
    expect(unmatchableHash(15))
      .toBe('scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(storedN(unmatchableHash(10))).toBe(1_024);
    expect(await verifyPassword('', unmatchableHash(10))).toBe(false);
    expect(await verifyPassword('a long enough password', unmatchableHash(10))).toBe(false);
  });

  it('refuses to make a hash at a cost outside the bounds', async () => {
    await expect(hashPassword('a long enough password', 21)).rejects.toThrow(RangeError);
    await expect(hashPassword('a long enough password', 12.5)).rejects.toThrow(RangeError);
  });
});
