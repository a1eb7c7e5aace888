import type { InvalidatedCache } from '../../shared/cache/invalidated-cache.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { findOrganizationByAccessToken } from '../../shared/domain/oauth/grants.ts';
import {
  findOrganizationByApiKey, type AuthenticatedOrganization,
} from '../../shared/domain/organizations/organizations.ts';

/**
 * Credential to organization, the look-up every public API request starts with, read through this
 * process's cache. Entries are keyed by the credential's digest (the credential itself is never
 * kept) and depend on the organization (API key rotation) and, for an access token, on its app
 * (a user's revoke, a reused code, the app's deletion): each of those changes empties them on
 * every api process (shared/cache/invalidation-bus.ts). Unknown credentials are not cached.
 */
export class CredentialLookup {
  readonly #db: Database;
  readonly #secrets: SecretBox;
  readonly #cache: InvalidatedCache<AuthenticatedOrganization>;

  constructor(deps: { db: Database; secrets: SecretBox; cache: InvalidatedCache<AuthenticatedOrganization> }) {
    this.#db = deps.db;
    this.#secrets = deps.secrets;
    this.#cache = deps.cache;
  }

  /** OAuth access tokens (pos_) act exactly like the organization's API key. */
  organizationFor(credential: string): Promise<AuthenticatedOrganization | null> {
    return this.#cache.get(this.#secrets.digest(credential), async () => {
      if (credential.startsWith('pos_')) {
        const holder = await findOrganizationByAccessToken(this.#db, this.#secrets, credential);
        if (holder === null) return null;
        const { organization, appId } = holder;
        return { value: organization, topics: [`organization:${organization.id}`, `app:${appId}`] };
      }
      const organization = await findOrganizationByApiKey(this.#db, this.#secrets, credential);
      return organization === null ? null : { value: organization, topics: [`organization:${organization.id}`] };
    });
  }
}
