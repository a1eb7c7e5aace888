import { PlatformError, type PlatformErrorKind } from './platform-error.ts';

/** What a room knows of an unreadable answer beyond its wording. */
export interface UnreadableDetails {
  /** The schema's complaint, kept for the logs. */
  cause?: unknown;
  /** The answer's HTTP status where it says something (a 200 whose body is not the API's). */
  httpStatus?: number | null;
  /** Permanent unless the call may have done its work all the same (then unconfirmed). */
  kind?: PlatformErrorKind;
  /** What follows for the user, after a semicolon: "it may have been made". */
  consequence?: string;
}

/**
 * The error for an answer SPS cannot read: the platform answered, but not in the shape its API
 * documents, so asking again would read the same answer (permanent, unless the room says the call
 * may have worked). `answered` names who answered what, as the room words it: "Mastodon answered
 * with a status"; the message goes on "SPS could not read".
 */
export function unreadableAnswer(provider: string, answered: string, details: UnreadableDetails = {}): PlatformError {
  const consequence = details.consequence === undefined ? '' : `; ${details.consequence}`;
  return new PlatformError({
    kind: details.kind ?? 'permanent',
    provider,
    message: `${answered} SPS could not read${consequence}`,
    httpStatus: details.httpStatus ?? null,
    cause: details.cause,
  });
}
