import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/** What a Nostr channel's access token holds: the key that signs its notes and the relays they go to. */
export interface NostrCredential {
  /** 64 lowercase hex characters. */
  privateKey: string;
  /** wss:// URLs (ws:// only where the deployment allows plain connections). */
  relays: string[];
}

const credential = z.object({
  privateKey: z.string().regex(/^[0-9a-f]{64}$/),
  relays: z.array(z.string().regex(/^wss?:\/\//)).min(1),
});

export const { encode: encodeNostrCredential, read: readNostrCredential } = storedCredential(credential, {
  provider: 'nostr', what: 'Nostr credential', reconnect: 'connect the key again',
});
