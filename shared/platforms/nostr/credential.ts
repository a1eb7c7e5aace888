import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

const hexKey = z.string().regex(/^[0-9a-f]{64}$/);
/** wss:// URLs (ws:// only where the deployment allows plain connections). */
const relayList = z.array(z.string().regex(/^wss?:\/\//)).min(1);

/** The user's own key signs the notes. */
const keyCredential = z.object({
  mode: z.literal('key'),
  privateKey: hexKey,
  /** Where the notes are published. */
  relays: relayList,
});

/**
 * A NIP-46 remote signer ("bunker") holds the user's key; SPS keeps only the client key it
 * talks to the signer with, and asks the signer to sign each note.
 */
const bunkerCredential = z.object({
  mode: z.literal('bunker'),
  /** The client secret key the signer knows SPS by (NIP-46 "client-keypair"). */
  clientSecretKey: hexKey,
  remoteSignerPubkey: hexKey,
  /** The author of the notes, from the signer's get_public_key. */
  userPubkey: hexKey,
  /** Where the notes are published. */
  relays: relayList,
  /** Where the signer listens (the bunker URL's relays). */
  signerRelays: relayList,
  secret: z.string().min(1).optional(),
});

/** What a Nostr channel's access token holds: how its notes get signed and the relays they go to. */
const credential = z.preprocess(
  // Tokens saved before remote signing existed hold a key and relays without a mode.
  (value) => (typeof value === 'object' && value !== null && !('mode' in value) ? { ...value, mode: 'key' } : value),
  z.discriminatedUnion('mode', [keyCredential, bunkerCredential]),
);

export type NostrCredential = z.output<typeof credential>;
export type NostrKeyCredential = z.infer<typeof keyCredential>;
export type NostrBunkerCredential = z.infer<typeof bunkerCredential>;

export const { encode: encodeNostrCredential, read: readNostrCredential } = storedCredential(credential, {
  provider: 'nostr', what: 'Nostr credential', reconnect: 'connect the key or the remote signer again',
});
