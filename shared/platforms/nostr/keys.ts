import { schnorr } from '@noble/curves/secp256k1.js';
import { bech32Decode, bech32Encode } from './bech32.ts';

/**
 * A Nostr key pair: a secp256k1 secret key and its BIP-340 x-only public key (NIP-01), as
 * lowercase hex, which is how events carry them.
 */
export interface NostrKeys {
  privateKey: string;
  publicKey: string;
}

/** Why a typed key was refused, in words the user can act on. */
export class NostrKeyError extends Error {}

/** The pair of a 32-byte secret; throws NostrKeyError when no key pair has it (zero, or not below the curve order). */
function keysOf(secret: Uint8Array): NostrKeys {
  let publicKey: Uint8Array;
  try {
    publicKey = schnorr.getPublicKey(secret);
  } catch (error) {
    throw new NostrKeyError('this private key is outside the secp256k1 range', { cause: error });
  }
  return { privateKey: Buffer.from(secret).toString('hex'), publicKey: Buffer.from(publicKey).toString('hex') };
}

/**
 * The key pair from what the user pasted: an `nsec1...` (NIP-19) or 64 hex characters.
 * An npub is refused by name, since it is the usual mistake.
 */
export function nostrKeysFrom(typed: string): NostrKeys {
  const text = typed.trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return keysOf(Buffer.from(text, 'hex'));
  if (text.toLowerCase().startsWith('npub1')) {
    throw new NostrKeyError('this is a public key (npub); paste the private key (nsec) that signs your notes');
  }
  const decoded = bech32Decode('nsec', text);
  if (decoded?.length !== 32) throw new NostrKeyError('the private key must be an nsec1... key or 64 hex characters');
  return keysOf(decoded);
}

/** A fresh key pair, for a client that talks to a remote signer (NIP-46 "client keypair"). */
export function newNostrKeys(): NostrKeys {
  return keysOf(schnorr.utils.randomSecretKey());
}

export function npubOf(publicKey: string): string {
  return bech32Encode('npub', Buffer.from(publicKey, 'hex'));
}
