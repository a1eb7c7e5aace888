/**
 * SPS has one permission: an access token acts for its organization on the whole public API, as
 * the organization's API key does (the consent page says so). A scope the app asks for is
 * recorded and answered back, as RFC 6749 §3.3 lets a server grant the scope requested; apps that
 * ask for none get this name for the one permission there is.
 */
export const defaultScope = 'public_api';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** Bounds what a code stores; real scope strings are a few words. */
const maxScopeLength = 1000;

/**
 * The requested scope in canonical form (tokens in order, once each, single spaces), or null
 * when it is not a valid scope string. An absent or empty scope is the default one.
 */
export function grantedScope(requested: string | null): string | null {
  if (requested === null || requested.trim() === '') return defaultScope;
  if (requested.length > maxScopeLength) return null;
  const tokens = requested.split(' ').filter((token) => token !== '');
  if (!tokens.every((token) => scopeToken.test(token))) return null;
  return [...new Set(tokens)].join(' ');
}
