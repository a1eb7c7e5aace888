import { createCipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';

/**
 * The simulators' own copy of what Nostr peers do to each other's bytes: NIP-01 ids, BIP-340
 * signatures, and NIP-44 v2 payloads (what a NIP-46 signer reads and writes). Kept apart from the
 * Nostr room on purpose, so a mistake there is not mirrored here.
 */
export interface SignedEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

export function publicKeyOf(secretKey: string): string {
  return hex(schnorr.getPublicKey(Buffer.from(secretKey, 'hex')));
}

export function eventId(fields: Omit<SignedEvent, 'id' | 'sig'>): string {
  const serialized = JSON.stringify([0, fields.pubkey, fields.created_at, fields.kind, fields.tags, fields.content]);
  return createHash('sha256').update(serialized, 'utf8').digest('hex');
}

export function signedEvent(secretKey: string, fields: Omit<SignedEvent, 'id' | 'sig' | 'pubkey'>): SignedEvent {
  const pubkey = publicKeyOf(secretKey);
  const id = eventId({ ...fields, pubkey });
  return { ...fields, pubkey, id, sig: hex(schnorr.sign(Buffer.from(id, 'hex'), Buffer.from(secretKey, 'hex'))) };
}

/** What a relay checks before accepting an event: null when fine, else the NIP-01 "invalid:" reason. */
export function eventFault(event: SignedEvent): string | null {
  if (eventId(event) !== event.id) return 'invalid: event id does not match';
  const valid = /^[0-9a-f]{128}$/.test(event.sig) && /^[0-9a-f]{64}$/.test(event.pubkey)
    && schnorr.verify(Buffer.from(event.sig, 'hex'), Buffer.from(event.id, 'hex'), Buffer.from(event.pubkey, 'hex'));
  return valid ? null : 'invalid: bad signature';
}

function hkdfExpand76(key: Buffer, info: Buffer): Buffer {
  const t1 = createHmac('sha256', key).update(Buffer.concat([info, Buffer.from([1])])).digest();
  const t2 = createHmac('sha256', key).update(Buffer.concat([t1, info, Buffer.from([2])])).digest();
  const t3 = createHmac('sha256', key).update(Buffer.concat([t2, info, Buffer.from([3])])).digest();
  return Buffer.concat([t1, t2, t3]).subarray(0, 76);
}

function paddedSize(length: number): number {
  if (length <= 32) return 32;
  const power = 1 << (32 - Math.clz32(length - 1));
  const chunk = power <= 256 ? 32 : power / 8;
  return Math.ceil(length / chunk) * chunk;
}

function chacha(key: Buffer, nonce: Buffer, data: Buffer): Buffer {
  const cipher = createCipheriv('chacha20', key, Buffer.concat([Buffer.alloc(4), nonce]));
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** NIP-44 v2 between a secret key and a peer's x-only public key. */
export function conversation(secretKey: string, peerPublicKey: string) {
  const shared = secp256k1.getSharedSecret(Buffer.from(secretKey, 'hex'), Buffer.from(`02${peerPublicKey}`, 'hex'));
  const key = createHmac('sha256', 'nip44-v2').update(shared.subarray(1)).digest();
  return {
    encrypt(text: string): string {
      const nonce = randomBytes(32);
      const keys = hkdfExpand76(key, nonce);
      const plain = Buffer.from(text, 'utf8');
      const padded = Buffer.concat([Buffer.from([plain.length >> 8, plain.length & 0xff]), plain]);
      const full = Buffer.concat([padded, Buffer.alloc(2 + paddedSize(plain.length) - padded.length)]);
      const sealed = chacha(keys.subarray(0, 32), keys.subarray(32, 44), full);
      const mac = createHmac('sha256', keys.subarray(44)).update(Buffer.concat([nonce, sealed])).digest();
      return Buffer.concat([Buffer.from([2]), nonce, sealed, mac]).toString('base64');
    },
    /** The text, or null for a payload not sealed in this conversation. */
    decrypt(payload: string): string | null {
      const data = Buffer.from(payload, 'base64');
      if (data.length < 99 || data[0] !== 2) return null;
      const nonce = data.subarray(1, 33);
      const sealed = data.subarray(33, -32);
      const keys = hkdfExpand76(key, nonce);
      const mac = createHmac('sha256', keys.subarray(44)).update(Buffer.concat([nonce, sealed])).digest();
      if (!timingSafeEqual(mac, data.subarray(-32))) return null;
      const padded = chacha(keys.subarray(0, 32), keys.subarray(32, 44), sealed);
      const length = padded.readUInt16BE(0);
      return padded.length === 2 + paddedSize(length) ? padded.subarray(2, 2 + length).toString('utf8') : null;
    },
  };
}
