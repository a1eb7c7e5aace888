import { z } from 'zod';

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

export function encodeGmbCredential(credential: GmbCredential): string {
  return JSON.stringify(credential);
}

/** Reads back the credential a connected channel stores; throws on anything else. */
export function readGmbCredential(accessToken: string): GmbCredential {
  return accessCredential.parse(JSON.parse(accessToken));
}

/**
 * The refresh token carries the location too: a refresh replaces the stored access credential
 * whole, and only the refresh token reaches the refresh step to rebuild it from.
 */
export function encodeGmbRefreshCredential(credential: GmbRefreshCredential): string {
  return JSON.stringify(credential);
}

export function readGmbRefreshCredential(refreshToken: string): GmbRefreshCredential | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(refreshToken);
  } catch {
    // A bare token (not one this room stored) cannot say which location it was for.
    return null;
  }
  const result = refreshCredential.safeParse(parsed);
  return result.success ? result.data : null;
}
