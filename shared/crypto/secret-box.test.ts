import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { randomCredential, SecretBox } from './secret-box.ts';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals with a fresh IV each time and opens back to the plaintext', () => {
    const first = box.seal('platform-token');
    const second = box.seal('platform-token');
    expect(first).not.toBe(second);
    expect(first).not.toContain('platform-token');
    expect(box.open(first)).toBe('platform-token');
  });

  it('refuses a tampered or foreign ciphertext', () => {
    const sealed = box.seal('platform-token');
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[3] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[3] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });

  it('digests deterministically per key and compares in constant time', () => {
    const digest = box.digest('sps_key');
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(box.digest('sps_key')).toBe(digest);
    expect(new SecretBox(randomBytes(32)).digest('sps_key')).not.toBe(digest);
    expect(box.matches('sps_key', digest)).toBe(true);
    expect(box.matches('sps_other', digest)).toBe(false);
  });

  it('makes credentials with 32 random bytes', () => {
    const credential = randomCredential('pos_');
    expect(credential).toMatch(/^pos_[A-Za-z0-9_-]{43}$/);
    expect(randomCredential('pos_')).not.toBe(credential);
  });
});
