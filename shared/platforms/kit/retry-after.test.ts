import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterHeaderMs } from './retry-after.ts';

const now = Date.UTC(2026, 0, 1);

describe('Retry-After', () => {
  it('reads seconds or an HTTP date, and nothing else', () => {
    expect(parseRetryAfter(' 12 ', now)).toBe(12_000);
    expect(parseRetryAfter(new Date(now + 5_000).toUTCString(), now)).toBe(5_000);
    expect(parseRetryAfter(new Date(now - 5_000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('later', now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('reads the header by its name, whatever the answer', () => {
    const header = (name: string) => (name === 'retry-after' ? '3' : null);
    expect(retryAfterHeaderMs(header, now)).toBe(3_000);
    expect(retryAfterHeaderMs(() => null, now)).toBeNull();
  });
});
