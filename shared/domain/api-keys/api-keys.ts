import { Types } from 'mongoose';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import { authenticatedOrganization, type AuthenticatedOrganization } from '../organizations/organizations.ts';
import { isApiScope, type ApiScope } from './scopes.ts';

/** Named keys have their own prefix, so a look-up knows which collection to ask. */
export const namedKeyPrefix = 'spk_';
/** Enough to tell keys apart on a list; far too little to guess the rest (32 random bytes). */
const shownStartLength = namedKeyPrefix.length + 6;
export const maxKeysPerOrganization = 50;
export const maxKeyNameLength = 100;

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: ApiScope[];
  /** The key's first characters (`spk_abc123`), never the secret. */
  start: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export interface NewApiKey {
  name: string;
  scopes: readonly ApiScope[];
  expiresAt: Date | null;
}

interface StoredKey {
  _id: Types.ObjectId;
  name: string;
  scopes: string[];
  keyStart: string;
  createdAt: Date;
  expiresAt?: Date | null;
  lastUsedAt?: Date | null;
}

function knownScopes(scopes: readonly string[]): ApiScope[] {
  return scopes.filter(isApiScope);
}

function present(key: StoredKey): ApiKeyView {
  return {
    id: key._id.toString(),
    name: key.name,
    scopes: knownScopes(key.scopes),
    start: key.keyStart,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  };
}

/** The organization's live keys (revoked ones are gone from the list; expired ones stay, marked by their date). */
export async function listApiKeys(db: Database, organizationId: string): Promise<ApiKeyView[]> {
  const keys = await db.apiKeys.find({ organizationId: new Types.ObjectId(organizationId), revokedAt: null })
    .sort({ createdAt: 1, _id: 1 }).lean();
  return keys.map(present);
}

/** A new key; its secret is returned here once and stored only as a digest. */
export async function createApiKey(
  db: Database,
  secrets: SecretBox,
  organizationId: string,
  input: NewApiKey,
  now: Date,
): Promise<{ key: ApiKeyView; secret: string }> {
  const name = input.name.trim();
  if (name === '' || name.length > maxKeyNameLength) {
    throw new DomainError('validation_failed', `a key name has 1 to ${maxKeyNameLength} characters`, [
      { path: 'name', message: 'empty or too long' },
    ]);
  }
  if (input.scopes.length === 0) {
    throw new DomainError('validation_failed', 'choose at least one scope', [{ path: 'scopes', message: 'empty' }]);
  }
  if (input.expiresAt !== null && input.expiresAt.getTime() <= now.getTime()) {
    throw new DomainError('validation_failed', 'expiresAt must be in the future', [
      { path: 'expiresAt', message: 'in the past' },
    ]);
  }
  const owner = new Types.ObjectId(organizationId);
  const live = await db.apiKeys.countDocuments({ organizationId: owner, revokedAt: null });
  if (live >= maxKeysPerOrganization) {
    throw new DomainError(
      'conflict', `an organization has at most ${maxKeysPerOrganization} API keys; revoke one first`,
    );
  }
  const secret = randomCredential(namedKeyPrefix);
  const created = await db.apiKeys.create({
    organizationId: owner,
    name,
    scopes: [...new Set(input.scopes)],
    keyDigest: secrets.digest(secret),
    keyStart: secret.slice(0, shownStartLength),
    expiresAt: input.expiresAt,
  });
  return { key: present(created.toObject()), secret };
}

/** Revokes one key; the others, and the organization's original key, keep working. */
export async function revokeApiKey(
  db: Database,
  caches: CacheInvalidation,
  organizationId: string,
  keyId: string,
  now: Date,
): Promise<void> {
  if (!Types.ObjectId.isValid(keyId)) throw notFound(`API key ${keyId}`);
  const result = await db.apiKeys.updateOne(
    { _id: new Types.ObjectId(keyId), organizationId: new Types.ObjectId(organizationId), revokedAt: null },
    { $set: { revokedAt: now } },
  );
  if (result.matchedCount === 0) throw notFound(`API key ${keyId}`);
  // Every api process may hold the key in its credential cache: each forgets it before we answer.
  await caches.changed([`api-key:${keyId}`]);
}

export interface NamedKeyHolder {
  organization: AuthenticatedOrganization;
  keyId: string;
  scopes: ApiScope[];
  expiresAt: Date | null;
}

/**
 * The organization a named key acts for, with the key's scopes and expiry, or null when no live
 * key has that secret. Expiry is left to the caller: it is checked on every request, cached or not.
 */
export async function findNamedKey(
  db: Database,
  secrets: SecretBox,
  credential: string,
): Promise<NamedKeyHolder | null> {
  if (!credential.startsWith(namedKeyPrefix)) return null;
  const key = await db.apiKeys.findOne({ keyDigest: secrets.digest(credential), revokedAt: null }).lean();
  if (key === null) return null;
  const organization = await authenticatedOrganization(db, key.organizationId);
  if (organization === null) return null;
  return {
    organization,
    keyId: key._id.toString(),
    scopes: knownScopes(key.scopes),
    expiresAt: key.expiresAt ?? null,
  };
}

/**
 * Records that a key was used. The filter makes the write a no-op when another process wrote a
 * time within the last minute, so at most one write a minute per key reaches the database.
 */
export async function recordKeyUse(db: Database, keyId: string, now: Date, minimumGapMs: number): Promise<void> {
  await db.apiKeys.updateOne(
    {
      _id: new Types.ObjectId(keyId),
      $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: new Date(now.getTime() - minimumGapMs) } }],
    },
    { $set: { lastUsedAt: now } },
  );
}
