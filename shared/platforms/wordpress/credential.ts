import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';

/** What publishing signs in with: the user's login and one of their application passwords. */
const wordpressCredential = z.object({
  username: z.string().min(1),
  applicationPassword: z.string().min(1),
});

export type WordpressCredential = z.infer<typeof wordpressCredential>;

/** The channel's access token: both values, since WordPress needs both on every call (HTTP Basic). */
export function encodeWordpressCredential(credential: WordpressCredential): string {
  return JSON.stringify(credential);
}

/**
 * Reads back a token written by encodeWordpressCredential; anything else means the channel must
 * be connected again.
 */
export function readWordpressCredential(accessToken: string): WordpressCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(accessToken) as unknown;
  } catch (error) {
    throw unreadable(error);
  }
  const result = wordpressCredential.safeParse(parsed);
  if (!result.success) throw unreadable(result.error);
  return result.data;
}

function unreadable(cause: unknown): PlatformError {
  return new PlatformError({
    kind: 'disconnected',
    provider: 'wordpress',
    message: 'the stored WordPress credential is unreadable; connect the site again',
    cause,
  });
}
