import { createCipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';

/**
 * NIP-44 version 2 encrypted payloads, which NIP-46 requests and answers travel in:
 * secp256k1 ECDH, HKDF-SHA256, ChaCha20, HMAC-SHA256 over nonce and ciphertext, padded lengths,
 * base64 with a version byte. Written from the NIP; checked against its published test vectors.
 */
export class Nip44Error extends Error {}

const version = 2;
const salt = Buffer.from('nip44-v2', 'utf8');
const minPlaintext = 1;
const maxPlaintext = 65535;

/** HKDF-extract (RFC 5869): the shared x coordinate under the NIP's salt. Same both ways round. */
export function nip44ConversationKey(secretKey: string, publicKey: string): Buffer {
  let shared: Uint8Array;
  try {
    // A Nostr pubkey is x alone; BIP-340 fixes its y as the even one, which the 02 prefix says.
    shared = secp256k1.getSharedSecret(Buffer.from(secretKey, 'hex'), Buffer.from(`02${publicKey}`, 'hex'));
  } catch (error) {
    const message = 'no conversation key: the secret key or the public key is not a secp256k1 key';
    throw new Nip44Error(message, { cause: error });
  }
  return createHmac('sha256', salt).update(shared.subarray(1, 33)).digest();
}

/** HKDF-expand (RFC 5869) to 76 bytes, split into the ChaCha20 key and nonce and the HMAC key. */
function messageKeys(conversationKey: Buffer, nonce: Buffer) {
  const blocks: Buffer[] = [];
  let previous = Buffer.alloc(0);
  for (let counter = 1; counter <= 3; counter += 1) {
    previous = createHmac('sha256', conversationKey)
      .update(previous)
      .update(nonce)
      .update(Buffer.from([counter]))
      .digest();
    blocks.push(previous);
  }
  const okm = Buffer.concat(blocks).subarray(0, 76);
  return { chachaKey: okm.subarray(0, 32), chachaNonce: okm.subarray(32, 44), hmacKey: okm.subarray(44, 76) };
}

/** The padded length hides the exact size: 32 bytes at least, then steps that grow with the length. */
export function nip44PaddedLength(length: number): number {
  if (length <= 32) return 32;
  const nextPower = 2 ** Math.floor(Math.log2(length - 1) + 1);
  const chunk = nextPower <= 256 ? 32 : nextPower / 8;
  return chunk * (Math.floor((length - 1) / chunk) + 1);
}

function chacha20(key: Buffer, nonce: Buffer, data: Buffer): Buffer {
  // node's chacha20 takes a 16-byte IV: a 32-bit little-endian block counter (0 here), then the 12-byte nonce.
  const cipher = createCipheriv('chacha20', key, Buffer.concat([Buffer.alloc(4), nonce]));
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

function macOf(hmacKey: Buffer, nonce: Buffer, ciphertext: Buffer): Buffer {
  return createHmac('sha256', hmacKey).update(nonce).update(ciphertext).digest();
}

/** Encrypts text for the conversation; `nonce` (32 bytes) is random unless a test vector fixes it. */
export function nip44Encrypt(plaintext: string, conversationKey: Buffer, nonce: Buffer = randomBytes(32)): string {
  const text = Buffer.from(plaintext, 'utf8');
  if (text.length < minPlaintext || text.length > maxPlaintext) {
    throw new Nip44Error(`a NIP-44 message holds 1 to ${String(maxPlaintext)} bytes`);
  }
  const padded = Buffer.alloc(2 + nip44PaddedLength(text.length));
  padded.writeUInt16BE(text.length, 0);
  text.copy(padded, 2);
  const keys = messageKeys(conversationKey, nonce);
  const ciphertext = chacha20(keys.chachaKey, keys.chachaNonce, padded);
  const mac = macOf(keys.hmacKey, nonce, ciphertext);
  return Buffer.concat([Buffer.from([version]), nonce, ciphertext, mac]).toString('base64');
}

/** Decrypts a payload of the conversation; throws Nip44Error for anything not written with its key. */
export function nip44Decrypt(payload: string, conversationKey: Buffer): string {
  if (payload.startsWith('#')) throw new Nip44Error('unknown NIP-44 version');
  if (payload.length < 132 || payload.length > 87472 || !/^[A-Za-z0-9+/]+={0,2}$/.test(payload)) {
    throw new Nip44Error('not a NIP-44 payload: wrong size or not base64');
  }
  const data = Buffer.from(payload, 'base64');
  if (data.length < 99 || data.length > 65603) throw new Nip44Error('not a NIP-44 payload: wrong size');
  if (data.readUInt8(0) !== version) throw new Nip44Error(`unknown NIP-44 version ${String(data.readUInt8(0))}`);
  const nonce = data.subarray(1, 33);
  const ciphertext = data.subarray(33, data.length - 32);
  const mac = data.subarray(data.length - 32);
  const keys = messageKeys(conversationKey, nonce);
  if (!timingSafeEqual(macOf(keys.hmacKey, nonce, ciphertext), mac)) throw new Nip44Error('invalid MAC');
  const padded = chacha20(keys.chachaKey, keys.chachaNonce, ciphertext);
  const length = padded.readUInt16BE(0);
  if (length < minPlaintext || padded.length !== 2 + nip44PaddedLength(length)) throw new Nip44Error('invalid padding');
  return padded.subarray(2, 2 + length).toString('utf8');
}
