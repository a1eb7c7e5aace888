import { z } from 'zod';

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

export function encodeNostrCredential(value: NostrCredential): string {
  return JSON.stringify(value);
}

/** Reads back the credential connect saved; throws when the stored value is not one. */
export function readNostrCredential(accessToken: string): NostrCredential {
  return credential.parse(JSON.parse(accessToken));
}
