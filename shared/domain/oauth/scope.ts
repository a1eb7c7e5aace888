import { apiScopes, fullScopes, isApiScope, type ApiScope } from '../api-keys/scopes.ts';

/**
 * An access token carries the public API scopes its app asked for and the user approved
 * (shared/domain/api-keys/scopes.ts), the same names as API keys, enforced by the same
 * middleware. `public_api`, the name of the one permission there was before scopes, stands for
 * every scope: apps that ask for none get it, and tokens issued before scopes act with it.
 */
export const defaultScope = 'public_api';

/** What an app may ask for, as the metadata document lists it. */
export const supportedScopes: readonly string[] = [defaultScope, ...apiScopes];

/** Bounds what a code stores; real scope strings are a few words. */
const maxScopeLength = 1000;

/**
 * The requested scope in canonical form (tokens in order, once each, single spaces), or null
 * when it names a scope SPS does not have (RFC 6749 §4.1.2.1 invalid_scope). An absent or empty
 * scope is the default one.
 */
export function grantedScope(requested: string | null): string | null {
  if (requested === null || requested.trim() === '') return defaultScope;
  if (requested.length > maxScopeLength) return null;
  const tokens = requested.split(' ').filter((token) => token !== '');
  if (!tokens.every((token) => token === defaultScope || isApiScope(token))) return null;
  return [...new Set(tokens)].join(' ');
}

/** The API scopes a granted scope string stands for; null (a grant from before scopes) is every scope. */
export function apiScopesOf(scope: string | null): readonly ApiScope[] {
  if (scope === null) return fullScopes;
  const tokens = scope.split(' ');
  if (tokens.includes(defaultScope)) return fullScopes;
  return apiScopes.filter((name) => tokens.includes(name));
}
