import { createHash, randomBytes } from 'node:crypto';

/** A PKCE pair (RFC 7636): the verifier stays with SPS, the challenge goes in the authorize URL. */
export interface PkcePair {
  verifier: string;
  challenge: string;
  method: 'S256';
}

/** 32 random bytes as base64url give a 43-character verifier, the shortest RFC 7636 allows. */
export function createPkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier), method: 'S256' };
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
