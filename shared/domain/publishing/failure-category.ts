import { PlatformError } from '../../platforms/kit/platform-error.ts';

/**
 * Why a publish attempt failed, as clients read it (GET /posts/:id, post.failed, post.retrying,
 * GET /events): the kit's PlatformErrorKind, which the worker acts on, told in the terms a
 * client acts on. Persisted on posts and sent to receivers: renaming one breaks both.
 */
export const failureCategories = [
  'rate_limited',
  'retryable',
  'disconnected',
  'permanent',
  'media_rejected',
  'unconfirmed',
  'interrupted',
  'internal',
] as const;
export type FailureCategory = (typeof failureCategories)[number];

/** What each category means and what the user can do: the API reference and the notifications say it. */
export const failureCategoryDescriptions: Record<FailureCategory, string> = {
  rate_limited: 'the platform asked SPS to slow down (HTTP 429 or a rate-limit reset); SPS waits for the reset and '
    + 'tries again; once it stops, retry later',
  retryable: 'the platform or the network was unavailable (a 5xx answer, a timeout); SPS retries with backoff; '
    + 'once it stops, retry later',
  disconnected: 'the platform no longer accepts the channel\'s authorization (revoked, an expired token that '
    + 'could not be renewed, the channel removed or disabled): reconnect the channel, then retry',
  permanent: 'the platform refused what was sent (text, settings, a reply target): edit the post before retrying',
  media_rejected: 'an attached file was refused by the platform (too large, a type it does not take) or is no '
    + 'longer available to SPS: replace the media, then retry',
  unconfirmed: 'the platform may have published the part without confirming it; SPS did not send it again: '
    + 'check the account, then link the item (PUT /posts/:id/release-id) or schedule the post again',
  interrupted: 'publishing was interrupted too many times (the worker stopped or its job was lost): retry',
  internal: 'SPS could not finish (its database or queue was unavailable on the last attempt, or an unexpected '
    + 'error): retry; report it if it happens again',
};

/** The category in a few words, for the failure notification. */
export const failureCategoryWords: Record<FailureCategory, string> = {
  rate_limited: 'rate limited by the platform',
  retryable: 'the platform was unavailable',
  disconnected: 'the channel must be reconnected',
  permanent: 'the platform refused the post',
  media_rejected: 'the media was refused',
  unconfirmed: 'not confirmed by the platform',
  interrupted: 'publishing was interrupted',
  internal: 'SPS could not finish',
};

/** A part's media refused before the platform is called: gone from the library, or its import failed. */
export class MediaUnavailable extends PlatformError {
  constructor(message: string) {
    super({ kind: 'permanent', provider: 'sps', message });
    this.name = 'MediaUnavailable';
  }
}

/** The recovery gave up on a post whose publishing kept being interrupted (recover-publications.ts). */
export class PublishInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishInterrupted';
  }
}

/** HTTP statuses with which platforms refuse a file itself: too large, or of a type they do not take. */
const mediaRefusalStatuses = new Set([413, 415]);

export function failureCategoryOf(error: Error): FailureCategory {
  if (error instanceof PublishInterrupted) return 'interrupted';
  if (!(error instanceof PlatformError)) return 'internal';
  switch (error.kind) {
    case 'retryable':
      // A throttle told without a status (a GraphQL error in a 200, say) carries only its reset time.
      return error.httpStatus === 429 || (error.httpStatus === null && error.retryAfterMs !== null)
        ? 'rate_limited'
        : 'retryable';
    case 'refresh_token':
    case 'disconnected':
      return 'disconnected';
    case 'unconfirmed':
      return 'unconfirmed';
    case 'permanent':
      return error instanceof MediaUnavailable || mediaRefusalStatuses.has(error.httpStatus ?? 0)
        ? 'media_rejected'
        : 'permanent';
  }
}
