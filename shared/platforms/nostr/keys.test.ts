import { describe, expect, it } from 'vitest';
import { bech32Decode, bech32Encode } from './bech32.ts';
import { NostrKeyError, nostrKeysFrom, npubOf } from './keys.ts';

describe('nostr keys', () => {
  it('derives the BIP-340 x-only public key (BIP-340 test vector 0)', () => {
    const keys = nostrKeysFrom('0000000000000000000000000000000000000000000000000000000000000003');
    expect(keys.publicKey).toBe('f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9');
  });

  it('reads an nsec and writes an npub as NIP-19\'s examples do', () => {
    const nsec = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
    expect(nostrKeysFrom(nsec).privateKey).toBe('67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa');
    const publicKey = '7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e';
    expect(npubOf(publicKey)).toBe('npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg');
  });

  it('refuses a mistyped nsec, an npub, and a key outside the curve', () => {
    const nsec = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
    expect(() => nostrKeysFrom(nsec.replace('vl0', 'vl9'))).toThrow(NostrKeyError);
    const npub = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
    expect(() => nostrKeysFrom(npub)).toThrow(/public key/);
    expect(() => nostrKeysFrom('0'.repeat(64))).toThrow(/secp256k1 range/);
    expect(() => nostrKeysFrom('f'.repeat(64))).toThrow(/secp256k1 range/);
  });

  it('round-trips bech32 and refuses another prefix', () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, index) => index * 7);
    const text = bech32Encode('nsec', bytes);
    expect(bech32Decode('nsec', text)).toEqual(bytes);
    expect(bech32Decode('nsec', text.toUpperCase())).toEqual(bytes);
    expect(bech32Decode('npub', text)).toBeNull();
  });
});
