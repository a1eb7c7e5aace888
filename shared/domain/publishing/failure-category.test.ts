import { describe, expect, it } from 'vitest';
import { PlatformError, type PlatformErrorKind } from '../../platforms/kit/platform-error.ts';
import { failureCategoryOf, MediaUnavailable, PublishInterrupted } from './failure-category.ts';

const refusal = (kind: PlatformErrorKind, httpStatus: number | null, retryAfterMs: number | null = null) =>
  new PlatformError({ kind, provider: 'mastodon', message: 'no', httpStatus, retryAfterMs });

describe('failureCategoryOf', () => {
  it('tells the kit\'s kinds in the public categories', () => {
    expect(failureCategoryOf(refusal('retryable', 429, 1_000))).toBe('rate_limited');
    expect(failureCategoryOf(refusal('retryable', null, 1_000))).toBe('rate_limited');
    expect(failureCategoryOf(refusal('retryable', 503, 1_000))).toBe('retryable');
    expect(failureCategoryOf(refusal('retryable', null))).toBe('retryable');
    expect(failureCategoryOf(refusal('refresh_token', 401))).toBe('disconnected');
    expect(failureCategoryOf(refusal('disconnected', 401))).toBe('disconnected');
    expect(failureCategoryOf(refusal('unconfirmed', null))).toBe('unconfirmed');
    expect(failureCategoryOf(refusal('permanent', 422))).toBe('permanent');
  });

  it('tells a refused or missing file apart from other refusals', () => {
    expect(failureCategoryOf(refusal('permanent', 413))).toBe('media_rejected');
    expect(failureCategoryOf(refusal('permanent', 415))).toBe('media_rejected');
    expect(failureCategoryOf(new MediaUnavailable('media 1 is no longer in the library'))).toBe('media_rejected');
  });

  it('tells SPS\'s own failures: an interrupted publication, anything else', () => {
    expect(failureCategoryOf(new PublishInterrupted('interrupted 4 times'))).toBe('interrupted');
    expect(failureCategoryOf(new Error('connection reset'))).toBe('internal');
  });
});
