import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * What a Google Business Profile channel holds: the user's Google token and the location it
 * publishes to. Posts go to `accounts/{a}/locations/{l}/localPosts` (v4), so both names are kept.
 */
const target = {
  /** `accounts/123`. */
  account: z.string().regex(/^accounts\/[^/]+$/),
  /** `locations/456`, the channel's account id. */
  location: z.string().regex(/^locations\/[^/]+$/),
};

const accessCredential = z.object({ accessToken: z.string().min(1), ...target });
const refreshCredential = z.object({ refreshToken: z.string().min(1), ...target });

export type GmbCredential = z.infer<typeof accessCredential>;
export type GmbRefreshCredential = z.infer<typeof refreshCredential>;

const where = { provider: 'gmb', reconnect: 'connect the location again' };

export const { encode: encodeGmbCredential, read: readGmbCredential } = storedCredential(accessCredential, {
  ...where,
  what: 'Business Profile credential',
});

/**
 * The refresh token carries the location too: a refresh replaces the stored access credential
 * whole, and only the refresh token reaches the refresh step to rebuild it from. A bare token
 * (not one this room stored) cannot say which location it was for: null.
 */
export const { encode: encodeGmbRefreshCredential, readOrNull: readGmbRefreshCredential } = storedCredential(
  refreshCredential,
  {
    ...where,
    what: 'Business Profile refresh token',
  },
);
