import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * What publishing signs in with: the user's login and one of their application passwords, both
 * on every call (HTTP Basic).
 */
const credential = z.object({
  username: z.string().min(1),
  applicationPassword: z.string().min(1),
});

export type WordpressCredential = z.infer<typeof credential>;

export const { encode: encodeWordpressCredential, read: readWordpressCredential } = storedCredential(credential, {
  provider: 'wordpress', what: 'WordPress credential', reconnect: 'connect the site again',
});
