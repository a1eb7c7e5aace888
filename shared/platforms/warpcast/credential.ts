import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/** What a Farcaster channel's access token holds: the Neynar app key and the user's signer made with it. */
export interface WarpcastCredential {
  apiKey: string;
  /** Neynar only accepts a signer with the API key that created it, so the two travel together. */
  signerUuid: string;
}

const credential = z.object({ apiKey: z.string().min(1), signerUuid: z.string().min(1) });

export const { encode: encodeWarpcastCredential, read: readWarpcastCredential } = storedCredential(credential, {
  provider: 'warpcast', what: 'Warpcast credential', reconnect: 'connect the account again',
});
