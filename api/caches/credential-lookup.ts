import type { InvalidatedCache } from '../../shared/cache/invalidated-cache.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { findNamedKey, namedKeyPrefix } from '../../shared/domain/api-keys/api-keys.ts';
import { fullScopes, type ApiScope } from '../../shared/domain/api-keys/scopes.ts';
import { findOrganizationByAccessToken } from '../../shared/domain/oauth/grants.ts';
import {
  findOrganizationByApiKey, type AuthenticatedOrganization,
} from '../../shared/domain/organizations/organizations.ts';

/** Whom a credential acts for and what it may do. */
export interface Credential {
  organization: AuthenticatedOrganization;
  scopes: readonly ApiScope[];
  /** The named key's id (its last-used time is recorded); null for the original key and access tokens. */
  keyId: string | null;
  /** Checked on every request, so a cached key still stops at its expiry. */
  expiresAt: Date | null;
  /** RFC 8707: an access token's audience (/mcp checks it); null for API keys and tokens bound to none. */
  resource: string | null;
}

/**
 * Credential to organization and scopes, the look-up every public API request starts with, read
 * through this process's cache. Entries are keyed by the credential's digest (the credential
 * itself is never kept) and depend on the organization (API key rotation), on a named key (its
 * revoke) and, for an access token, on its app (a user's revoke, a reused code, the app's
 * deletion): each of those changes empties them on every api process
 * (shared/cache/invalidation-bus.ts). Unknown credentials are not cached.
 */
export class CredentialLookup {
  readonly #db: Database;
  readonly #secrets: SecretBox;
  readonly #cache: InvalidatedCache<Credential>;

  constructor(deps: { db: Database; secrets: SecretBox; cache: InvalidatedCache<Credential> }) {
    this.#db = deps.db;
    this.#secrets = deps.secrets;
    this.#cache = deps.cache;
  }

  credentialFor(credential: string): Promise<Credential | null> {
    return this.#cache.get(this.#secrets.digest(credential), async () => {
      if (credential.startsWith('pos_')) {
        const holder = await findOrganizationByAccessToken(this.#db, this.#secrets, credential);
        if (holder === null) return null;
        const { organization, appId, scopes, resource } = holder;
        const value = { organization, scopes, keyId: null, expiresAt: null, resource };
        return { value, topics: [`organization:${organization.id}`, `app:${appId}`] };
      }
      if (credential.startsWith(namedKeyPrefix)) {
        const key = await findNamedKey(this.#db, this.#secrets, credential);
        if (key === null) return null;
        const { organization, keyId, scopes, expiresAt } = key;
        return {
          value: { organization, scopes, keyId, expiresAt, resource: null },
          topics: [`organization:${organization.id}`, `api-key:${keyId}`],
        };
      }
      // The organization's original key: every scope, as before keys had scopes.
      const organization = await findOrganizationByApiKey(this.#db, this.#secrets, credential);
      if (organization === null) return null;
      const value = { organization, scopes: fullScopes, keyId: null, expiresAt: null, resource: null };
      return { value, topics: [`organization:${organization.id}`] };
    });
  }
}
