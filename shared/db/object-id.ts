import { Types } from 'mongoose';

/**
 * Ids in URLs and bodies are opaque strings to callers; anything that is not one of ours
 * (wrong length, not hex) simply matches nothing, which callers see as "not found".
 */
export function asObjectId(value: string): Types.ObjectId | null {
  return /^[0-9a-fA-F]{24}$/.test(value) ? new Types.ObjectId(value.toLowerCase()) : null;
}

/** The distinct ObjectIds among `values`, in first-seen order; values that are not ids are left out. */
export function distinctObjectIds(values: readonly string[]): Types.ObjectId[] {
  const byHex = new Map<string, Types.ObjectId>();
  for (const value of values) {
    const id = asObjectId(value);
    if (id !== null && !byHex.has(id.toHexString())) byHex.set(id.toHexString(), id);
  }
  return [...byHex.values()];
}
