import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { findOrganizationByAccessToken } from '../../shared/domain/oauth/grants.ts';
import { findOrganizationByApiKey } from '../../shared/domain/organizations/organizations.ts';
import { DomainError } from '../../shared/errors.ts';

/** Both the spec's raw `Authorization: <key>` and `Bearer <key>` are accepted. */
export function credentialFrom(header: string): string {
  const trimmed = header.trim();
  const bearer = /^Bearer\s+(.+)$/i.exec(trimmed);
  return (bearer?.[1] ?? trimmed).trim();
}

export function authenticate(deps: { db: Database; secrets: SecretBox }): Middleware<AppState> {
  return async (ctx, next) => {
    const credential = credentialFrom(ctx.get('Authorization'));
    if (credential === '') {
      throw new DomainError('missing_credentials', 'send your API key or access token in the Authorization header');
    }
    // OAuth access tokens (pos_) act exactly like the organization's API key.
    const organization = credential.startsWith('pos_')
      ? await findOrganizationByAccessToken(deps.db, deps.secrets, credential)
      : await findOrganizationByApiKey(deps.db, deps.secrets, credential);
    if (organization === null) {
      throw new DomainError('invalid_credentials', 'the API key or access token is not valid or was revoked');
    }
    ctx.state.organization = organization;
    ctx.state.log = ctx.state.log.child({ organizationId: organization.id });
    await next();
  };
}
