import { describe, expect, it } from 'vitest';
import { resetHeaderWaitMs, throttledWaitMs, type RateLimitReset } from './rate-limit-reset.ts';

const now = Date.UTC(2026, 0, 1);
const nowSeconds = now / 1000;
const headersOf = (headers: Record<string, string>) => (name: string) => headers[name] ?? null;

describe('resetHeaderWaitMs', () => {
  it('reads a Unix time, a count of seconds with a fraction, or either by its size', () => {
    expect(resetHeaderWaitMs(String(nowSeconds + 30), 'unix-seconds', now)).toBe(30_000);
    expect(resetHeaderWaitMs('2.5001', 'seconds', now)).toBe(2_501);
    expect(resetHeaderWaitMs('45', 'seconds-or-unix', now)).toBe(45_000);
    expect(resetHeaderWaitMs(String(nowSeconds + 45), 'seconds-or-unix', now)).toBe(45_000);
  });

  it('gives a past reset as a negative wait, for the caller to floor', () => {
    expect(resetHeaderWaitMs(String(nowSeconds - 5), 'unix-seconds', now)).toBe(-5_000);
  });

  it('names no wait for an absent, unreadable or negative reset, nor 0 as a time', () => {
    expect(resetHeaderWaitMs(null, 'seconds', now)).toBeNull();
    expect(resetHeaderWaitMs('soon', 'seconds', now)).toBeNull();
    expect(resetHeaderWaitMs('-1', 'seconds', now)).toBeNull();
    expect(resetHeaderWaitMs('0', 'unix-seconds', now)).toBeNull();
    expect(resetHeaderWaitMs('0', 'seconds-or-unix', now)).toBeNull();
    expect(resetHeaderWaitMs('0', 'seconds', now)).toBe(0);
  });
});

describe('throttledWaitMs', () => {
  const reset: RateLimitReset = { header: 'x-ratelimit-reset', counting: 'seconds-or-unix', fallbackMs: 60_000 };

  it('takes Retry-After first, then the reset, then the fallback', () => {
    expect(throttledWaitMs(headersOf({ 'retry-after': '7', 'x-ratelimit-reset': '20' }), now, reset)).toBe(7_000);
    expect(throttledWaitMs(headersOf({ 'x-ratelimit-reset': '20' }), now, reset)).toBe(20_000);
    expect(throttledWaitMs(headersOf({}), now, reset)).toBe(60_000);
    expect(throttledWaitMs(headersOf({}), now, { ...reset, fallbackMs: null })).toBeNull();
  });

  it('never waits less than a second', () => {
    expect(throttledWaitMs(headersOf({ 'retry-after': '0' }), now, reset)).toBe(1_000);
    expect(throttledWaitMs(headersOf({ 'x-ratelimit-reset': String(nowSeconds - 5) }), now, reset)).toBe(1_000);
  });
});
