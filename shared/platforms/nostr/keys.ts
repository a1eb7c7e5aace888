import { createECDH } from 'node:crypto';
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

/**
 * The key pair from what the user pasted: an `nsec1...` (NIP-19) or 64 hex characters.
 * An npub is refused by name, since it is the usual mistake.
 */
export function nostrKeysFrom(typed: string): NostrKeys {
  const text = typed.trim();
  let secret: Buffer;
  if (/^[0-9a-f]{64}$/i.test(text)) {
    secret = Buffer.from(text, 'hex');
  } else if (text.toLowerCase().startsWith('npub1')) {
    throw new NostrKeyError('this is a public key (npub); paste the private key (nsec) that signs your notes');
  } else {
    const decoded = bech32Decode('nsec', text);
    if (decoded?.length !== 32) {
      throw new NostrKeyError('the private key must be an nsec1... key or 64 hex characters');
    }
    secret = Buffer.from(decoded);
  }
  const ecdh = createECDH('secp256k1');
  try {
    ecdh.setPrivateKey(secret);
  } catch (error) {
    // Zero, or not below the curve order: no key pair has it.
    throw new NostrKeyError('this private key is outside the secp256k1 range', { cause: error });
  }
  // The compressed point is the parity byte then x; BIP-340 keys are x alone.
  const publicKey = ecdh.getPublicKey(null, 'compressed').subarray(1, 33).toString('hex');
  return { privateKey: secret.toString('hex'), publicKey };
}

export function npubOf(publicKey: string): string {
  return bech32Encode('npub', Buffer.from(publicKey, 'hex'));
}
