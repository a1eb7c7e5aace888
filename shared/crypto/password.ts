import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * The cost of new hashes as log2 of scrypt's N (PASSWORD_HASH_LOG_N): what the setting accepts, and its
 * default, 15: N = 2^15 with r = 8 is 32 MiB of memory and 0.1-0.16 CPU-seconds a hash on our machines.
 */
export const passwordHashLogN = { min: 10, max: 20, default: 15 } as const;

/** scrypt's block size and parallelism, the same for every hash written here. */
const blockSize = 8;
const parallelism = 1;
const keyLength = 32;

type ScryptCost = Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>;

/**
 * A verified hash may ask for no more than the dearest one hashPassword writes (N = 2^20, r = 8, p = 1: 1 GiB):
 * the stored parameters set the work and memory, so a forged row must not make a login take minutes or
 * gigabytes. Beyond that, verification answers false. A cheaper hash (an older or a test one) is fine.
 */
const dearest: ScryptCost = { N: 2 ** passwordHashLogN.max, r: blockSize, p: parallelism };

/** scrypt's own count of its memory (OpenSSL: 128 * r * (N + 2) for V, 128 * r * p for B), its maxmem. */
function memoryFor(cost: ScryptCost): number {
  return 128 * cost.r * (cost.N + cost.p + 2);
}

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: memoryFor(cost) };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, options, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}

function costOf(logN: number): ScryptCost {
  if (!Number.isInteger(logN) || logN < 1 || logN > passwordHashLogN.max) {
    throw new RangeError(`the scrypt cost must be a whole log2 N from 1 to ${passwordHashLogN.max}, not ${logN}`);
  }
  return { N: 2 ** logN, r: blockSize, p: parallelism };
}

function format(cost: ScryptCost, salt: Buffer, key: Buffer): string {
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * `scrypt$N$r$p$salt$hash` with N = 2^logN: the parameters travel with the hash, so the cost can change
 * (PASSWORD_HASH_LOG_N) without breaking the hashes already stored.
 */
export async function hashPassword(password: string, logN: number = passwordHashLogN.default): Promise<string> {
  const cost = costOf(logN);
  const salt = randomBytes(16);
  return format(cost, salt, await derive(password, salt, cost));
}

/**
 * A well-formed hash at the cost hashPassword(…, logN) uses that no password matches (its key is all zeros):
 * checking a password against it takes as long as against a real hash of that cost.
 */
export function unmatchableHash(logN: number = passwordHashLogN.default): string {
  return format(costOf(logN), Buffer.alloc(16), Buffer.alloc(keyLength));
}

/** A stored parameter: a plain decimal number, else 0 (refused below). */
function whole(text: string | undefined): number {
  return text !== undefined && /^\d{1,8}$/.test(text) ? Number(text) : 0;
}

/** The stored parameters, or null when they are malformed or dearer than the bound above. */
function storedCost(n: string | undefined, r: string | undefined, p: string | undefined): ScryptCost | null {
  const cost = { N: whole(n), r: whole(r), p: whole(p) };
  // scrypt wants N a power of two above 1, and r and p at least 1.
  if (cost.N < 2 || (cost.N & (cost.N - 1)) !== 0 || cost.r < 1 || cost.p < 1) return null;
  if (cost.N > dearest.N || cost.r > dearest.r || cost.p > dearest.p) return null;
  return cost;
}

/** Whether the password matches the stored hash, at the hash's own cost; false for a malformed or forged one. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const cost = storedCost(n, r, p);
  if (cost === null) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}
