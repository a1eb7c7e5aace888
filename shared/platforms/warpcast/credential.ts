import { z } from 'zod';

/** What a Farcaster channel's access token holds: the Neynar app key and the user's signer made with it. */
export interface WarpcastCredential {
  apiKey: string;
  /** Neynar only accepts a signer with the API key that created it, so the two travel together. */
  signerUuid: string;
}

const credential = z.object({ apiKey: z.string().min(1), signerUuid: z.string().min(1) });

export function encodeWarpcastCredential(value: WarpcastCredential): string {
  return JSON.stringify(value);
}

/** Reads back the credential connect saved; throws when the stored value is not one. */
export function readWarpcastCredential(accessToken: string): WarpcastCredential {
  return credential.parse(JSON.parse(accessToken));
}
