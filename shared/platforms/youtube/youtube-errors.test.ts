import { describe, expect, it } from 'vitest';
import { msUntilPacificMidnight } from './pacific-midnight.ts';
import { classifyYoutubeRefusal, youtubeErrorMessage, youtubeRetryAfterMs } from './youtube-errors.ts';

const hour = 3_600_000;
const refusal = (code: number, reason: string, message = 'Refused', status?: string) => ({
  error: {
    code, message, errors: [{ message, domain: 'global', reason }], ...(status === undefined ? {} : { status }),
  },
});
const noHeaders = () => null;

describe('midnight Pacific time, when YouTube\'s daily quota turns over', () => {
  it('is 8 hours after noon in summer (PDT, UTC-7) and in winter (PST, UTC-8)', () => {
    expect(msUntilPacificMidnight(Date.parse('2026-07-01T12:00:00-07:00'))).toBe(12 * hour);
    expect(msUntilPacificMidnight(Date.parse('2026-01-15T23:59:30-08:00'))).toBe(30_000);
    expect(msUntilPacificMidnight(Date.parse('2026-01-15T00:00:00-08:00'))).toBe(24 * hour);
  });

  it('counts the hour daylight saving takes or gives on the way', () => {
    // 8 March 2026: clocks go from 02:00 PST to 03:00 PDT, so that day has 23 hours.
    expect(msUntilPacificMidnight(Date.parse('2026-03-08T00:30:00-08:00'))).toBe(22.5 * hour);
    // 1 November 2026: clocks go back from 02:00 PDT to 01:00 PST, so that day has 25 hours.
    expect(msUntilPacificMidnight(Date.parse('2026-11-01T00:30:00-07:00'))).toBe(24.5 * hour);
    expect(msUntilPacificMidnight(Date.parse('2026-11-01T12:00:00-08:00'))).toBe(12 * hour);
  });
});

describe('YouTube refusals by their reason', () => {
  it('retries quota and rate limits whatever their status', () => {
    expect(classifyYoutubeRefusal(403, refusal(403, 'quotaExceeded'))).toBe('retryable');
    expect(classifyYoutubeRefusal(403, refusal(403, 'userRateLimitExceeded'))).toBe('retryable');
    expect(classifyYoutubeRefusal(429, refusal(429, 'rateLimitExceeded'))).toBe('retryable');
  });

  it('refreshes an expired token, but not for a Google account without a channel', () => {
    expect(classifyYoutubeRefusal(401, refusal(401, 'authError', 'Invalid Credentials', 'UNAUTHENTICATED')))
      .toBe('refresh_token');
    expect(classifyYoutubeRefusal(401, refusal(401, 'youtubeSignupRequired'))).toBe('permanent');
  });

  it('leaves other refusals to their status (403 forbidden, 400 bad metadata: permanent; 5xx: retryable)', () => {
    expect(classifyYoutubeRefusal(403, refusal(403, 'forbidden'))).toBeUndefined();
    expect(classifyYoutubeRefusal(400, refusal(400, 'uploadLimitExceeded'))).toBeUndefined();
  });

  it('waits for midnight Pacific time plus a minute on a spent quota, a minute on a burst limit', () => {
    const now = Date.parse('2026-07-01T22:00:00-07:00');
    expect(youtubeRetryAfterMs(403, noHeaders, now, refusal(403, 'quotaExceeded'))).toBe(2 * hour + 60_000);
    expect(youtubeRetryAfterMs(403, noHeaders, now, refusal(403, 'userRateLimitExceeded'))).toBe(60_000);
    expect(youtubeRetryAfterMs(403, noHeaders, now, refusal(403, 'forbidden'))).toBeNull();
    const retryAfter = (name: string) => (name === 'retry-after' ? '7' : null);
    expect(youtubeRetryAfterMs(429, retryAfter, now, refusal(429, 'rateLimitExceeded'))).toBe(7_000);
  });

  it('puts what a reason means before Google\'s words, without the HTML Google puts in them', () => {
    expect(youtubeErrorMessage(refusal(400, 'invalidTags', 'Bad <code>tags</code>', 'INVALID_ARGUMENT')))
      .toBe('YouTube: Bad tags (INVALID_ARGUMENT)');
    expect(youtubeErrorMessage(refusal(403, 'forbidden', 'Forbidden'))).toBe(
      'YouTube: YouTube does not allow this for the channel (Forbidden)',
    );
    expect(youtubeErrorMessage('<html>502</html>')).toBeUndefined();
  });
});
