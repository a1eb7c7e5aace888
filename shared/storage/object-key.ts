import { randomBytes } from 'node:crypto';

/** `YYYY/MM/DD/<random>.<ext>`: dated folders keep directories small; the random name is unguessable. */
export function newObjectKey(extension: string, now: Date = new Date()): string {
  const ext = extension.replace(/^\./, '').toLowerCase();
  if (!/^[a-z0-9]{1,8}$/.test(ext)) throw new Error(`unsafe file extension: ${JSON.stringify(extension)}`);
  const yyyy = now.getUTCFullYear().toString();
  const mm = (now.getUTCMonth() + 1).toString().padStart(2, '0');
  const dd = now.getUTCDate().toString().padStart(2, '0');
  return `${yyyy}/${mm}/${dd}/${randomBytes(16).toString('hex')}.${ext}`;
}

const objectKeyPattern = /^\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}(?:-[a-z]+)?\.[a-z0-9]{1,8}$/;

/** Keys are only ever made by newObjectKey; anything else (`..`, absolute, backslashes) is refused. */
export function isSafeObjectKey(key: string): boolean {
  return objectKeyPattern.test(key);
}

export function assertSafeObjectKey(key: string): void {
  if (!isSafeObjectKey(key)) throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
}

/** The key of a file derived from another (a video's poster frame): same folder and name, a suffix. */
export function derivedObjectKey(key: string, suffix: string, extension: string): string {
  assertSafeObjectKey(key);
  const derived = key.replace(/(?:-[a-z]+)?\.[a-z0-9]{1,8}$/, `-${suffix}.${extension}`);
  assertSafeObjectKey(derived);
  return derived;
}
