import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { nulCharacterPath } from '../../validation/json-shape.ts';
import { checkedRedirectUrl } from './oauth-apps.ts';

/**
 * Dynamic Client Registration (RFC 7591), so an MCP client given only a server URL can register
 * itself. The design, kept small: a registered client is an OAuth app with no organization
 * (organizationId null). It can do nothing until a person approves it on the consent page, where
 * they pick the organization the grant acts for; from then it is in their approved apps and they
 * can revoke it like any app. No organization manages it in the dashboard's app page, and it has no
 * registration access token (RFC 7592 is not offered): a client that lost its id registers again.
 */

/** The longest client_name: the dashboard's app names have the same cap. */
export const maxClientNameLength = 100;

/** RFC 7591 §3.2.2's errors; `error_description` says which field and why. */
export class RegistrationError extends Error {
  readonly code: 'invalid_redirect_uri' | 'invalid_client_metadata';
  constructor(code: RegistrationError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export const tokenEndpointAuthMethods = ['none', 'client_secret_basic', 'client_secret_post'] as const;

/**
 * The metadata SPS reads; anything else a client sends (logo_uri, contacts, software_id...) is
 * ignored, as RFC 7591 §2 asks of fields a server does not understand.
 */
const registrationRequest = z.object({
  client_name: z.string().trim().min(1).max(maxClientNameLength),
  // One address: an app has one redirect URL, matched exactly at authorize (RFC 9700 §4.1.3).
  redirect_uris: z.array(z.string().max(2_000)).length(1),
  grant_types: z.array(z.string().max(100)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  // RFC 7591 §2's default is client_secret_basic; MCP clients send "none" (public, with PKCE).
  token_endpoint_auth_method: z.enum(tokenEndpointAuthMethods).default('client_secret_basic'),
});

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: ['authorization_code'];
  response_types: ['code'];
  token_endpoint_auth_method: (typeof tokenEndpointAuthMethods)[number];
  /** Only for a confidential client; it never expires (0, RFC 7591 §3.2.1). */
  client_secret?: string;
  client_secret_expires_at?: 0;
}

function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'the client metadata is invalid';
  const path = issue.path.map(String).join('.');
  return `${path === '' ? 'body' : path}: ${issue.message}`;
}

/**
 * Checks the metadata and registers the client. Grant and response types other than the
 * authorization code flow's are dropped from what is answered (RFC 7591 §3.2.1 lets a server
 * replace requested values): clients commonly ask for refresh_token too, which SPS does not issue.
 */
export async function registerClient(
  db: Database,
  secrets: SecretBox,
  body: unknown,
  now: Date,
): Promise<RegisteredClient> {
  // The route parses its own body (RFC 7591's error shape), past the API's JSON middleware that
  // refuses NUL characters; the database can neither store nor search text holding one.
  const nulPath = nulCharacterPath(body);
  if (nulPath !== null) {
    const place = nulPath === '' ? 'body' : nulPath;
    throw new RegistrationError('invalid_client_metadata', `${place}: text cannot contain the NUL character (\\u0000)`);
  }
  const parsed = registrationRequest.safeParse(body);
  if (!parsed.success) {
    const onRedirect = parsed.error.issues.some((issue) => issue.path[0] === 'redirect_uris');
    const hint = onRedirect ? ' (exactly one redirect URI is accepted)' : '';
    throw new RegistrationError(onRedirect ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${firstProblem(parsed.error)}${hint}`);
  }
  const request = parsed.data;
  const redirect = checkedRedirectUrl(request.redirect_uris[0] ?? '');
  if (!redirect.ok) throw new RegistrationError('invalid_redirect_uri', `redirect_uris.0 ${redirect.problem}`);
  if (request.grant_types !== undefined && !request.grant_types.includes('authorization_code')) {
    throw new RegistrationError('invalid_client_metadata', 'grant_types must include authorization_code');
  }
  if (request.response_types !== undefined && !request.response_types.includes('code')) {
    throw new RegistrationError('invalid_client_metadata', 'response_types must include code');
  }
  const confidential = request.token_endpoint_auth_method !== 'none';
  const clientSecret = confidential ? randomCredential('pcs_') : null;
  const app = await db.oauthApps.create({
    organizationId: null,
    name: request.client_name,
    redirectUrl: redirect.url,
    clientId: `pca_${randomBytes(16).toString('hex')}`,
    clientSecretDigest: clientSecret === null ? null : secrets.digest(clientSecret),
  });
  return {
    client_id: app.clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: app.name,
    redirect_uris: [app.redirectUrl],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: request.token_endpoint_auth_method,
    ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 as const }),
  };
}
