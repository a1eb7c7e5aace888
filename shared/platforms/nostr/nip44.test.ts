import { describe, expect, it } from 'vitest';
import { Nip44Error, nip44ConversationKey, nip44Decrypt, nip44Encrypt, nip44PaddedLength } from './nip44.ts';
import { nostrKeysFrom } from './keys.ts';

// The NIP-44 v2 test vectors (nip44.vectors.json, valid.get_conversation_key and valid.encrypt_decrypt[0]).
const sec1 = '0000000000000000000000000000000000000000000000000000000000000001';
const sec2 = '0000000000000000000000000000000000000000000000000000000000000002';
const conversationKey = 'c41c775356fd92eadc63ff5a0dc1da211b268cbea22316767095b2871ea1412d';
const nonce = Buffer.from('0000000000000000000000000000000000000000000000000000000000000001', 'hex');
const payload =
  'AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABee0G5VSK0/9YypIObAtDKfYEAjD35uVkHyB0F4DwrcNaCXlCWZKaArsGrY6M9wn'
  + 'uTMxWfp1RTN9Xga8no+kF5Vsb';

describe('nip44', () => {
  it('derives the conversation key of the vector, the same from both sides', () => {
    const pub1 = nostrKeysFrom(sec1).publicKey;
    const pub2 = nostrKeysFrom(sec2).publicKey;
    expect(nip44ConversationKey(sec1, pub2).toString('hex')).toBe(conversationKey);
    expect(nip44ConversationKey(sec2, pub1).toString('hex')).toBe(conversationKey);
  });

  it('encrypts and decrypts the vector', () => {
    const key = Buffer.from(conversationKey, 'hex');
    expect(nip44Encrypt('a', key, nonce)).toBe(payload);
    expect(nip44Decrypt(payload, key)).toBe('a');
  });

  it('round-trips long and non-ASCII text with a random nonce', () => {
    const key = Buffer.from(conversationKey, 'hex');
    const text = `${'é🍕'.repeat(3000)}end`;
    const sealed = nip44Encrypt(text, key);
    expect(sealed).not.toBe(nip44Encrypt(text, key));
    expect(nip44Decrypt(sealed, key)).toBe(text);
  });

  it('pads as calc_padded_len does', () => {
    const table = [
      [16, 32],
      [32, 32],
      [33, 64],
      [37, 64],
      [45, 64],
      [49, 64],
      [64, 64],
      [65, 96],
      [100, 128],
      [111, 128],
      [200, 224],
      [250, 256],
      [320, 320],
      [383, 384],
      [384, 384],
      [400, 448],
      [500, 512],
      [512, 512],
      [515, 640],
      [700, 768],
      [800, 896],
      [900, 1024],
      [1020, 1024],
      [65536, 65536],
    ];
    expect(table.map(([length = 0]) => [length, nip44PaddedLength(length)])).toEqual(table);
  });

  it('refuses a payload whose MAC, version or key is wrong', () => {
    const key = Buffer.from(conversationKey, 'hex');
    const bytes = Buffer.from(payload, 'base64');
    bytes[40] = (bytes[40] ?? 0) ^ 1;
    expect(() => nip44Decrypt(bytes.toString('base64'), key)).toThrow('invalid MAC');
    expect(() => nip44Decrypt(`#${payload.slice(1)}`, key)).toThrow('unknown NIP-44 version');
    const other = nip44ConversationKey(sec1, nostrKeysFrom(sec1).publicKey);
    expect(() => nip44Decrypt(payload, other)).toThrow(Nip44Error);
  });

  it('has no conversation key with a zero secret or a pubkey off the curve (invalid_conversation_key)', () => {
    const pub = '1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef';
    expect(() => nip44ConversationKey('0'.repeat(64), pub)).toThrow(Nip44Error);
    expect(() => nip44ConversationKey(sec2, pub)).toThrow(Nip44Error);
  });
});
