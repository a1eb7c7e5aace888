import {
  createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject,
} from 'node:crypto';

/**
 * Server-side secret handling derived from one root key (SECRETS_KEY):
 * - `seal`/`open`: AES-256-GCM for values SPS must read back (platform tokens, the API key copy
 *   the dashboard shows);
 * - `digest`: HMAC-SHA-256 for values SPS only compares (API keys, OAuth secrets, codes, tokens).
 * Separate subkeys (HKDF) keep a digest from ever being usable as an encryption key and back.
 */
export class SecretBox {
  // KeyObjects, imported once: given a Buffer, each HMAC or cipher imports the key again, which
  // cost more than the HMAC of an API key itself (every public request digests its credential).
  readonly #encryptionKey: KeyObject;
  readonly #digestKey: KeyObject;

  constructor(rootKey: Buffer) {
    if (rootKey.length !== 32) throw new Error('SecretBox needs a 32-byte root key');
    const subkey = (info: string): KeyObject =>
      createSecretKey(Buffer.from(hkdfSync('sha256', rootKey, Buffer.alloc(0), info, 32)));
    this.#encryptionKey = subkey('sps/encryption/v1');
    this.#digestKey = subkey('sps/digest/v1');
  }

  /** Returns `v1.<iv>.<tag>.<ciphertext>` in base64url, so the format can evolve. */
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#encryptionKey, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v1', iv, tag, ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || ciphertext === undefined) {
      throw new Error('sealed value has an unknown format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#encryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  digest(secret: string): string {
    return createHmac('sha256', this.#digestKey).update(secret, 'utf8').digest('hex');
  }

  /** Constant-time comparison of a presented secret against a stored digest. */
  matches(secret: string, storedDigest: string): boolean {
    const presented = Buffer.from(this.digest(secret), 'hex');
    const stored = Buffer.from(storedDigest, 'hex');
    return presented.length === stored.length && timingSafeEqual(presented, stored);
  }
}

/** A random credential: `prefix` + 43 base64url characters (32 bytes of entropy). */
export function randomCredential(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}
