import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * What publishing signs in with: the API user's name and its token (v4 and later), or before v4
 * the admin's user name and password, which is the only API login those versions have.
 */
const listmonkCredential = z.object({
  apiUser: z.string().min(1),
  token: z.string().min(1),
});

export type ListmonkCredential = z.infer<typeof listmonkCredential>;

const stored = storedCredential(listmonkCredential, {
  provider: 'listmonk', what: 'listmonk credential', reconnect: 'connect the instance again',
});
export const { encode: encodeListmonkCredential, read: readListmonkCredential } = stored;

/**
 * Basic auth: v4 and later take it for an API user as well as their own `token user:token`
 * (design-blogging-business.md 8.1), and it is the only scheme earlier versions know, so one
 * header serves every version.
 */
export function listmonkAuthorization(credential: ListmonkCredential): string {
  return `Basic ${Buffer.from(`${credential.apiUser}:${credential.token}`, 'utf8').toString('base64')}`;
}
