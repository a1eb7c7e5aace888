import { randomInt } from 'node:crypto';

/** Consonants only: no vowels (no words), no look-alikes such as 0/O or 1/I. 20^8 ≈ 2.6e10 codes. */
const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';

/** Stored form: 8 letters, no dash. */
export function newUserCode(): string {
  let code = '';
  for (let index = 0; index < 8; index += 1) code += alphabet.charAt(randomInt(alphabet.length));
  return code;
}

/** What the user sees: XXXX-XXXX. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** Accepts the code with or without the dash, any case, surrounding spaces. Null if it cannot be one. */
export function normaliseUserCode(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '').toUpperCase();
  return new RegExp(`^[${alphabet}]{8}$`).test(compact) ? compact : null;
}
