import { createHash } from 'node:crypto';

/** The base32 alphabet of TIDs, in sort order, so that keys compare like the times they hold. */
const sortableBase32 = '234567abcdefghijklmnopqrstuvwxyz';

/** The form the PDS checks for a post's record key: 13 characters, the first at most "j". */
export const tidPattern = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

/**
 * A TID (timestamp identifier, the record-key format of app.bsky.feed.post): a 64-bit number
 * whose top bit is 0, then 53 bits of microseconds since 1970, then a 10-bit clock id, written
 * as 13 sortable base32 characters.
 */
export function encodeTid(microseconds: bigint, clockId: number): string {
  const value = (microseconds << 10n) | BigInt(clockId & 0x3ff);
  let text = '';
  for (let shift = 60n; shift >= 0n; shift -= 5n) text += sortableBase32.charAt(Number((value >> shift) & 31n));
  return text;
}

/**
 * The record key of one post part, chosen by SPS rather than the PDS: the same on every attempt at
 * the part, so a retry after a lost answer writes to the key the first attempt used, where the
 * repository already holds the post, instead of making a second one. The time is when the part
 * was due (stable across attempts; posts sort by it); the sub-millisecond digits and the clock id
 * come from the part's idempotency key, so two parts due in the same millisecond differ.
 */
export function partRecordKey(idempotencyKey: string, dueAt: Date): string {
  const digest = createHash('sha256').update(idempotencyKey).digest();
  const microseconds = BigInt(dueAt.getTime()) * 1000n + BigInt(digest.readUInt16BE(0) % 1000);
  return encodeTid(microseconds, digest.readUInt16BE(2));
}
