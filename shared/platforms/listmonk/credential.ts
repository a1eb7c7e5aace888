import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/** What publishing signs in with: the API user's name and its token, sent together as `token user:token`. */
const listmonkCredential = z.object({
  apiUser: z.string().min(1),
  token: z.string().min(1),
});

export type ListmonkCredential = z.infer<typeof listmonkCredential>;

export const { encode: encodeListmonkCredential, read: readListmonkCredential } = storedCredential(listmonkCredential, {
  provider: 'listmonk', what: 'listmonk credential', reconnect: 'connect the instance again',
});

/** The Authorization header listmonk (v4 and later) takes for an API user. */
export function listmonkAuthorization(credential: ListmonkCredential): string {
  return `token ${credential.apiUser}:${credential.token}`;
}
