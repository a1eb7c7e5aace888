import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * PKCE (RFC 7636), S256 only: `plain` would hand the challenge's secret to anyone who sees the
 * authorization request, which is what PKCE exists to protect against.
 */
export const pkceMethods = ['S256'] as const;

/** An S256 challenge is BASE64URL(SHA-256(verifier)) without padding: 32 bytes, 43 characters. */
export function isS256Challenge(challenge: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(challenge);
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
function isVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier);
}

/** Whether the verifier presented at the token endpoint hashes to the challenge sent at authorize. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isVerifier(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
