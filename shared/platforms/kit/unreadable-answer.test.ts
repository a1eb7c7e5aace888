import { describe, expect, it } from 'vitest';
import { PlatformError } from './platform-error.ts';
import { unreadableAnswer } from './unreadable-answer.ts';

describe('unreadableAnswer', () => {
  it('is a permanent refusal worded by the room, with no status or cause unless given', () => {
    const error = unreadableAnswer('mastodon', 'Mastodon answered with a status');
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({
      kind: 'permanent', provider: 'mastodon', message: 'Mastodon answered with a status SPS could not read',
      httpStatus: null,
    });
    expect(error.cause).toBeUndefined();
  });

  it('keeps the cause, the status, the kind and what follows for the user', () => {
    const cause = new Error('expected a string');
    const error = unreadableAnswer('reddit', 'Reddit answered the comment in a shape', {
      cause, httpStatus: 200, kind: 'unconfirmed', consequence: 'it may have been made',
    });
    expect(error).toMatchObject({
      kind: 'unconfirmed', httpStatus: 200,
      message: 'Reddit answered the comment in a shape SPS could not read; it may have been made',
    });
    expect(error.cause).toBe(cause);
  });
});
