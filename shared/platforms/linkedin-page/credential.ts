import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * A LinkedIn Page channel acts with the member's token for one organization: publishing needs
 * both (the organization is the post's author), and a refresh must keep the organization, so the
 * stored access and refresh tokens each carry it.
 */
const organizationUrn = z.string().regex(/^urn:li:organization:\d+$/);

const pageCredential = z.object({ accessToken: z.string().min(1), organization: organizationUrn });
const pageRefresh = z.object({ refreshToken: z.string().min(1), organization: organizationUrn });

export type LinkedinPageCredential = z.infer<typeof pageCredential>;
export type LinkedinPageRefresh = z.infer<typeof pageRefresh>;

export const { encode: encodeLinkedinPageCredential, read: readLinkedinPageCredential } = storedCredential(
  pageCredential,
  {
    provider: 'linkedin-page',
    what: 'LinkedIn Page credential',
    reconnect: 'connect the page again',
  },
);

export const { encode: encodeLinkedinPageRefresh, read: readLinkedinPageRefresh } = storedCredential(pageRefresh, {
  provider: 'linkedin-page',
  what: 'LinkedIn Page refresh token',
  reconnect: 'connect the page again',
});
