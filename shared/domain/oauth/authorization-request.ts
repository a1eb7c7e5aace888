import type { Database } from '../../db/database.ts';
import { findAppByClientId, type StoredApp } from './oauth-apps.ts';
import { isS256Challenge, pkceMethods } from './pkce.ts';
import { grantedScope, supportedScopes } from './scope.ts';

/** The parameters of GET /oauth/authorize (or of the consent form that repeats them); null: not sent. */
export interface AuthorizationParameters {
  clientId: string;
  responseType: string;
  state: string | null;
  redirectUri: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  scope: string | null;
  /** RFC 8707 resource indicator: where the token will be used. */
  resource: string | null;
}

/** What an approval binds to its code, for the token endpoint to check. */
export interface RequestedGrant {
  /** Sent by the app, so its token request must carry it too (RFC 6749 §4.1.3). */
  redirectUri: string | null;
  /** S256 challenge; its verifier is required at the token endpoint. */
  codeChallenge: string | null;
  scope: string;
  /** RFC 8707: the token's audience, checked again at the token endpoint and by the resource. */
  resource: string | null;
}

/**
 * Problems answered on our own page: the app's redirect URL is not trusted for them (RFC 6749
 * §4.1.2.1), or (a state too long) the answer would have to repeat what makes it unusable.
 */
export type UntrustedRequestProblem =
  | 'unknown_client' | 'redirect_uri_mismatch' | 'unsupported_response_type' | 'state_too_long';

/**
 * The longest `state` sent back to an app. Every answer at its redirect URL repeats the state
 * (RFC 6749 §4.1.2): a 64 KB one made a Location header no client reads (Node refuses headers
 * over 16 KB, browsers addresses far shorter), and the user was left with a broken redirect.
 */
export const maxStateLength = 2_048;

type RefusalError = 'invalid_request' | 'invalid_scope' | 'invalid_target';

/** The longest resource indicator kept on a code. */
const maxResourceLength = 2_000;

/**
 * RFC 8707 §2: a resource is an absolute URI without a fragment. Any such URI is accepted: the
 * token is bound to it, and a resource server that is not it refuses the token (api/mcp/).
 */
export function resourceProblem(resource: string): string | null {
  if (resource.length > maxResourceLength) return `resource must be at most ${String(maxResourceLength)} characters`;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return 'resource must be an absolute URI';
  }
  if (url.hash !== '' || resource.includes('#')) return 'resource must not contain a fragment';
  return null;
}

export type AuthorizationCheck =
  | { outcome: 'untrusted'; problem: UntrustedRequestProblem }
  /** Answered at the app's redirect URL with `error` and `error_description`. */
  | { outcome: 'refused'; app: StoredApp; error: RefusalError; description: string }
  | { outcome: 'acceptable'; app: StoredApp; grant: RequestedGrant };

/**
 * Checks an authorization request in RFC 6749's order: the client and its redirect URI first
 * (until both are known good, nothing may be sent to the redirect URI), then the rest.
 */
export async function checkAuthorizationRequest(
  db: Database,
  parameters: AuthorizationParameters,
): Promise<AuthorizationCheck> {
  const app = await findAppByClientId(db, parameters.clientId);
  if (app === null) return { outcome: 'untrusted', problem: 'unknown_client' };
  // Exact string comparison, as RFC 9700 §4.1.3 asks: no normalization an attacker could play with.
  if (parameters.redirectUri !== null && parameters.redirectUri !== app.redirectUrl) {
    return { outcome: 'untrusted', problem: 'redirect_uri_mismatch' };
  }
  // The contract answers this on a page too, although RFC 6749 would allow a redirect.
  if (parameters.responseType !== 'code') return { outcome: 'untrusted', problem: 'unsupported_response_type' };
  if ((parameters.state?.length ?? 0) > maxStateLength) return { outcome: 'untrusted', problem: 'state_too_long' };

  const refused = (error: RefusalError, description: string): AuthorizationCheck =>
    ({ outcome: 'refused', app, error, description });
  const { codeChallenge, codeChallengeMethod } = parameters;
  if (codeChallenge === null && codeChallengeMethod !== null) {
    return refused('invalid_request', 'code_challenge_method was sent without a code_challenge');
  }
  // OAuth 2.1: a public client (no secret) has only PKCE to prove the code is its own.
  if (codeChallenge === null && (app.clientSecretDigest ?? null) === null) {
    return refused('invalid_request', 'code_challenge is required: this client is public and must use PKCE (S256)');
  }
  if (codeChallenge !== null) {
    // RFC 7636 §4.3: a challenge without a method is `plain`, which is refused like an explicit one.
    if (!pkceMethods.some((method) => method === codeChallengeMethod)) {
      return refused('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
    }
    if (!isS256Challenge(codeChallenge)) {
      return refused('invalid_request', 'code_challenge must be the base64url SHA-256 of a verifier (43 characters)');
    }
  }
  const scope = grantedScope(parameters.scope);
  if (scope === null) {
    return refused('invalid_scope', `scope must be space-separated names among: ${supportedScopes.join(', ')}`);
  }
  const resource = parameters.resource;
  const badResource = resource === null ? null : resourceProblem(resource);
  if (badResource !== null) return refused('invalid_target', badResource);
  return {
    outcome: 'acceptable', app, grant: { redirectUri: parameters.redirectUri, codeChallenge, scope, resource },
  };
}
