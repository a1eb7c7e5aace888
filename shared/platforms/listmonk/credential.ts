import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';

/** What publishing signs in with: the API user's name and its token, sent together as `token user:token`. */
const listmonkCredential = z.object({
  apiUser: z.string().min(1),
  token: z.string().min(1),
});

export type ListmonkCredential = z.infer<typeof listmonkCredential>;

export function encodeListmonkCredential(credential: ListmonkCredential): string {
  return JSON.stringify(credential);
}

/** The Authorization header listmonk (v4 and later) takes for an API user. */
export function listmonkAuthorization(credential: ListmonkCredential): string {
  return `token ${credential.apiUser}:${credential.token}`;
}

/**
 * Reads back a token written by encodeListmonkCredential; anything else means the channel must
 * be connected again.
 */
export function readListmonkCredential(accessToken: string): ListmonkCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(accessToken) as unknown;
  } catch (error) {
    throw unreadable(error);
  }
  const result = listmonkCredential.safeParse(parsed);
  if (!result.success) throw unreadable(result.error);
  return result.data;
}

function unreadable(cause: unknown): PlatformError {
  return new PlatformError({
    kind: 'disconnected',
    provider: 'listmonk',
    message: 'the stored listmonk credential is unreadable; connect the instance again',
    cause,
  });
}
