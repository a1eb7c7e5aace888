import { createHash } from 'node:crypto';
import { Types } from 'mongoose';

/**
 * The same ObjectId for the same fact: a record that must be written once per fact (the
 * notification and the webhook deliveries of one publication) takes it as `_id`, so a second
 * write (a job run again, two workers racing) is refused by the `_id` index instead of making a
 * twin, with no extra index and no marker written afterwards. The first four bytes are `at` in
 * seconds as in any ObjectId, so ids keep sorting by time; the other eight are a digest of `names`.
 */
export function derivedObjectId(at: Date, ...names: string[]): Types.ObjectId {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt32BE(Math.max(0, Math.floor(at.getTime() / 1000)) % 2 ** 32, 0);
  createHash('sha256').update(names.join('\u0000')).digest().copy(bytes, 4, 0, 8);
  return new Types.ObjectId(bytes);
}
