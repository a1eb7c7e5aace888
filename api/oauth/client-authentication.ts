import type { TokenRequest } from '../../shared/domain/oauth/authorization.ts';
import { OAuthError } from '../../shared/domain/oauth/oauth-error.ts';

interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/** RFC 6749 Appendix B: each half was form-urlencoded before base64, so `+` is a space. */
function formDecoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError('invalid_client', 'the Basic credentials are not form-urlencoded');
  }
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): `Authorization: Basic base64(id:secret)`. Null when
 * the header does not use the Basic scheme: other schemes are left alone, as before this existed.
 */
function basicCredentials(header: string): BasicCredentials | null {
  const match = /^basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header.trim());
  if (match === null) {
    if (/^basic\b/i.test(header.trim())) throw new OAuthError('invalid_client', 'the Basic credentials are malformed');
    return null;
  }
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'the Basic credentials have no colon between id and secret');
  return { clientId: formDecoded(decoded.slice(0, colon)), clientSecret: formDecoded(decoded.slice(colon + 1)) };
}

/** A body field that is present and not empty. */
function sent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The token request with the client's credentials taken from wherever the client put them: the
 * body (`client_secret_post`, the spec's JSON) or the Authorization header (`client_secret_basic`,
 * the default of most OAuth libraries). With both, they must name the same client: RFC 6749
 * §2.3 forbids two authentication methods, and we refuse only when they disagree.
 */
export function withClientCredentials(authorization: string, body: TokenRequest): TokenRequest {
  const basic = authorization === '' ? null : basicCredentials(authorization);
  if (basic === null) return body;
  if (sent(body.client_id) && body.client_id !== basic.clientId) {
    throw new OAuthError('invalid_request', 'client_id in the body differs from the Authorization header\'s');
  }
  if (sent(body.client_secret) && body.client_secret !== basic.clientSecret) {
    throw new OAuthError('invalid_request', 'client_secret in the body differs from the Authorization header\'s');
  }
  return { ...body, client_id: basic.clientId, client_secret: basic.clientSecret };
}
