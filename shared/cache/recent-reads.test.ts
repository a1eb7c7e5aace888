import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { RecentReads } from './recent-reads.ts';

/** A read that counts its calls and answers `value` after `ms`. */
function counted<V>(value: V | null, ms = 0): { read: () => Promise<V | null>; calls: () => number } {
  let calls = 0;
  return {
    read: async () => {
      calls += 1;
      await sleep(ms);
      return value;
    },
    calls: () => calls,
  };
}

describe('RecentReads', () => {
  it('hands one read to the callers of its window, running or done, and reads again after it', async () => {
    const reads = new RecentReads<{ n: number }>(100);
    const source = counted({ n: 1 }, 20);
    const together = await Promise.all([reads.get('a', source.read), reads.get('a', source.read)]);
    const after = await reads.get('a', source.read);
    expect(source.calls()).toBe(1);
    expect(together[1]).toBe(together[0]);
    expect(after).toBe(together[0]);

    await sleep(150);
    await reads.get('a', source.read);
    expect(source.calls()).toBe(2);
  });

  it('keeps keys apart', async () => {
    const reads = new RecentReads<string>(1_000);
    expect(await reads.get('a', () => Promise.resolve('A'))).toBe('A');
    expect(await reads.get('b', () => Promise.resolve('B'))).toBe('B');
  });

  it('keeps no empty or failed read', async () => {
    const reads = new RecentReads<string>(60_000);
    const nothing = counted<string>(null);
    await reads.get('a', nothing.read);
    await reads.get('a', nothing.read);
    expect(nothing.calls()).toBe(2);

    await expect(reads.get('b', () => Promise.reject(new Error('database away')))).rejects.toThrow('database away');
    expect(await reads.get('b', () => Promise.resolve('read again'))).toBe('read again');
  });

  it('reads every time without a window, and drops what it kept beyond its key limit', async () => {
    const always = new RecentReads<string>(0);
    const source = counted('x');
    await always.get('a', source.read);
    await always.get('a', source.read);
    expect(source.calls()).toBe(2);

    const small = new RecentReads<string>(60_000, 2);
    const first = counted('1');
    await small.get('a', first.read);
    await small.get('b', () => Promise.resolve('2'));
    await small.get('c', () => Promise.resolve('3'));
    await small.get('a', first.read);
    expect(first.calls()).toBe(2);
  });
});
