import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * YouTube's refusals as the Data API sends them: `{error: {code, message, errors: [{message,
 * domain, reason}], status}}`, the reason saying what happened. Facts:
 * /work/shared/platforms/oauth-majors.md 7.5 and 7.7.
 */

/** Every chunk of a resumable upload but the last is a multiple of this. */
export const chunkUnit = 256 * 1024;

export function youtubeError(
  code: number,
  reason: string,
  message: string,
  domain = 'youtube.video',
  status?: string,
): SimulatedAnswer {
  return {
    status: code,
    body: {
      error: { code, message, errors: [{ message, domain, reason }], ...(status === undefined ? {} : { status }) },
    },
  };
}

/** The project's daily units are spent (until midnight Pacific time); Google says it with a link. */
export const quotaExceeded = youtubeError(
  403,
  'quotaExceeded',
  'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">'
    + 'quota</a>.',
  'youtube.quota',
);

export const rateLimitExceeded = youtubeError(
  429, 'rateLimitExceeded', 'The request cannot be completed because you have exceeded the rate limit.',
  'usageLimits', 'RESOURCE_EXHAUSTED',
);

export const uploadLimitExceeded = youtubeError(
  400, 'uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.',
);

export const signupRequired = youtubeError(
  401, 'youtubeSignupRequired',
  'Unauthorized. The authenticated user has an unlinked Google Account, which means that the user has a Google '
    + 'Account but does not have a YouTube channel.',
  'global', 'UNAUTHENTICATED',
);

export const insufficientScopes = youtubeError(
  403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'global', 'PERMISSION_DENIED',
);

export const badRequest = (reason: string, message: string): SimulatedAnswer => youtubeError(400, reason, message);
