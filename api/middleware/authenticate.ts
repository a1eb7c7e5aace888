import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import type { CredentialLookup } from '../caches/credential-lookup.ts';
import { DomainError } from '../../shared/errors.ts';

/** Both the spec's raw `Authorization: <key>` and `Bearer <key>` are accepted. */
export function credentialFrom(header: string): string {
  const trimmed = header.trim();
  const bearer = /^Bearer\s+(\S.*)$/i.exec(trimmed);
  return (bearer?.[1] ?? trimmed).trim();
}

export function authenticate(credentials: CredentialLookup): Middleware<AppState> {
  return async (ctx, next) => {
    const credential = credentialFrom(ctx.get('Authorization'));
    if (credential === '') {
      throw new DomainError('missing_credentials', 'send your API key or access token in the Authorization header');
    }
    const organization = await credentials.organizationFor(credential);
    if (organization === null) {
      throw new DomainError('invalid_credentials', 'the API key or access token is not valid or was revoked');
    }
    ctx.state.organization = organization;
    ctx.state.requestLog.bind({ organizationId: organization.id });
    await next();
  };
}
