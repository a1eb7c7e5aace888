import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';

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

function readStored<T>(schema: z.ZodType<T>, stored: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(stored) as unknown;
  } catch (error) {
    const message = `the stored ${what} is not JSON`;
    throw new PlatformError({ kind: 'disconnected', provider: 'linkedin-page', message, cause: error });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const message = `the stored ${what} is malformed`;
    throw new PlatformError({ kind: 'disconnected', provider: 'linkedin-page', message });
  }
  return parsed.data;
}

export function encodeLinkedinPageCredential(credential: LinkedinPageCredential): string {
  return JSON.stringify(pageCredential.parse(credential));
}

/** What the publishing adapter reads back from a LinkedIn Page channel's token. */
export function readLinkedinPageCredential(accessToken: string): LinkedinPageCredential {
  return readStored(pageCredential, accessToken, 'LinkedIn Page credential');
}

export function encodeLinkedinPageRefresh(refresh: LinkedinPageRefresh): string {
  return JSON.stringify(pageRefresh.parse(refresh));
}

export function readLinkedinPageRefresh(refreshToken: string): LinkedinPageRefresh {
  return readStored(pageRefresh, refreshToken, 'LinkedIn Page refresh token');
}
