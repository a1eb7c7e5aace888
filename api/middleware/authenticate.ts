import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import type { CredentialLookup } from '../caches/credential-lookup.ts';
import type { KeyUsage } from '../caches/key-usage.ts';
import { DomainError } from '../../shared/errors.ts';

/** Both the spec's raw `Authorization: <key>` and `Bearer <key>` are accepted. */
export function credentialFrom(header: string): string {
  const trimmed = header.trim();
  const bearer = /^Bearer\s+(\S.*)$/i.exec(trimmed);
  return (bearer?.[1] ?? trimmed).trim();
}

/**
 * Who is calling: the organization and the credential's scopes go on `ctx.state` for the route's
 * scope check (authorize.ts). An expired named key is refused exactly like an unknown one.
 */
export function authenticate(
  credentials: CredentialLookup,
  usage: KeyUsage,
  now: () => Date,
): Middleware<AppState> {
  return async (ctx, next) => {
    const credential = credentialFrom(ctx.get('Authorization'));
    if (credential === '') {
      throw new DomainError('missing_credentials', 'send your API key or access token in the Authorization header');
    }
    const found = await credentials.credentialFor(credential);
    const at = now();
    if (found === null || (found.expiresAt !== null && found.expiresAt.getTime() <= at.getTime())) {
      throw new DomainError('invalid_credentials', 'the API key or access token is not valid or was revoked');
    }
    ctx.state.organization = found.organization;
    ctx.state.scopes = found.scopes;
    ctx.state.requestLog.bind({
      organizationId: found.organization.id, ...(found.keyId === null ? {} : { apiKeyId: found.keyId }),
    });
    if (found.keyId !== null) await usage.touch(found.keyId, at, ctx.state.log);
    await next();
  };
}
