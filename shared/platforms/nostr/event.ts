import { createHash } from 'node:crypto';
import { schnorr } from '@noble/curves/secp256k1.js';
import { z } from 'zod';

/** A NIP-01 event as relays carry it. */
export const nostrEvent = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  pubkey: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.number().int().nonnegative(),
  kind: z.number().int(),
  tags: z.array(z.array(z.string())),
  content: z.string(),
  sig: z.string().regex(/^[0-9a-f]{128}$/),
});
export type NostrEvent = z.infer<typeof nostrEvent>;

export type UnsignedEvent = Omit<NostrEvent, 'id' | 'pubkey' | 'sig'>;

/** NIP-01: the id is the SHA-256 of the serialized [0, pubkey, created_at, kind, tags, content]. */
export function eventIdOf(fields: Omit<NostrEvent, 'id' | 'sig'>): string {
  const serialized = JSON.stringify([0, fields.pubkey, fields.created_at, fields.kind, fields.tags, fields.content]);
  return createHash('sha256').update(serialized, 'utf8').digest('hex');
}

/**
 * True when the event is what its author wrote: the id matches the content and the BIP-340
 * signature over the id verifies against the pubkey. A relay can hand back anything; only this counts.
 */
export function eventIsAuthentic(event: NostrEvent): boolean {
  if (eventIdOf(event) !== event.id) return false;
  // The schema fixed the lengths; a pubkey that is no curve point just fails to verify.
  return schnorr.verify(Buffer.from(event.sig, 'hex'), Buffer.from(event.id, 'hex'), Buffer.from(event.pubkey, 'hex'));
}

/** Signs an event with a secret key (hex), filling in pubkey, id and sig. */
export function signEvent(secretKey: string, template: UnsignedEvent): NostrEvent {
  const secret = Buffer.from(secretKey, 'hex');
  const pubkey = Buffer.from(schnorr.getPublicKey(secret)).toString('hex');
  const id = eventIdOf({ ...template, pubkey });
  const sig = Buffer.from(schnorr.sign(Buffer.from(id, 'hex'), secret)).toString('hex');
  return { ...template, pubkey, id, sig };
}
