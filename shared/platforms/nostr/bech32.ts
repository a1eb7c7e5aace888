/**
 * Bech32 (BIP-173), the encoding NIP-19 gives keys for people to copy: `nsec1...`, `npub1...`.
 * Only what keys need: one hrp, 32-byte payloads, the plain bech32 checksum (not bech32m).
 */
const alphabet = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const generator = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    generator.forEach((term, bit) => {
      if (((top >>> bit) & 1) === 1) checksum ^= term;
    });
  }
  return checksum;
}

function expandPrefix(prefix: string): number[] {
  const codes = Array.from({ length: prefix.length }, (_, index) => prefix.charCodeAt(index));
  return [...codes.map((code) => code >>> 5), 0, ...codes.map((code) => code & 31)];
}

/** Regroups bits (8 → 5 to encode, 5 → 8 to decode); null when the padding is not zeros. */
function regroup(data: readonly number[], from: number, to: number, pad: boolean): number[] | null {
  let accumulator = 0;
  let bits = 0;
  const result: number[] = [];
  const mask = (1 << to) - 1;
  for (const value of data) {
    accumulator = (accumulator << from) | value;
    bits += from;
    while (bits >= to) {
      bits -= to;
      result.push((accumulator >>> bits) & mask);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (pad && bits > 0) result.push((accumulator << (to - bits)) & mask);
  else if (!pad && (bits >= from || accumulator !== 0)) return null;
  return result;
}

export function bech32Encode(prefix: string, bytes: Uint8Array): string {
  const words = regroup([...bytes], 8, 5, true) ?? [];
  const mod = polymod([...expandPrefix(prefix), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((index) => (mod >>> (5 * (5 - index))) & 31);
  return `${prefix}1${[...words, ...checksum].map((word) => alphabet.charAt(word)).join('')}`;
}

/** The payload of a bech32 string with this prefix, or null when it is not one (typo, wrong checksum). */
export function bech32Decode(prefix: string, text: string): Uint8Array | null {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) return null;
  const lower = text.toLowerCase();
  const separator = lower.lastIndexOf('1');
  if (lower.slice(0, separator) !== prefix || lower.length - separator - 1 < 6) return null;
  const words = Array.from(lower.slice(separator + 1), (char) => alphabet.indexOf(char));
  if (words.includes(-1) || polymod([...expandPrefix(prefix), ...words]) !== 1) return null;
  const bytes = regroup(words.slice(0, -6), 5, 8, false);
  return bytes === null ? null : Uint8Array.from(bytes);
}
