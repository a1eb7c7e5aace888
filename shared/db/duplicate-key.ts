/** The code MongoDB and FerretDB give a write refused by a unique index. */
const duplicateKeyCode = 11000;

function isOneDuplicate(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if ('code' in error && error.code === duplicateKeyCode) return true;
  return error instanceof Error && /E11000|duplicate key/i.test(error.message);
}

/**
 * Whether a write was refused by a unique index: the step that decides "exactly once" when two
 * writers race. An unordered bulk insert counts only when every document it refused was a
 * duplicate (the others were written); any other refusal is a real failure.
 */
export function isDuplicateKey(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // The driver gives one WriteError or an array of them.
  const refused: unknown = 'writeErrors' in error ? error.writeErrors : undefined;
  if (Array.isArray(refused) && refused.length > 0) return refused.every(isOneDuplicate);
  if (typeof refused === 'object' && refused !== null) return isOneDuplicate(refused);
  return isOneDuplicate(error);
}
