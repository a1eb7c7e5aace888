import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { isMember, type StoredUser } from '../accounts/accounts.ts';
import { DomainError } from '../../errors.ts';
import type { RequestedGrant } from './authorization-request.ts';
import { findAppByClientId, type StoredApp } from './oauth-apps.ts';
import { revokeGrantOfCode } from './grants.ts';
import { OAuthError } from './oauth-error.ts';
import { verifierMatches } from './pkce.ts';
import { defaultScope } from './scope.ts';

/** The spec: an authorization code lives 10 minutes and is single use. */
export const codeLifetimeMs = 10 * 60 * 1000;

export interface TokenResponse {
  id: string;
  cus: string | null;
  access_token: string;
  token_type: 'bearer';
  /** RFC 6749 §5.1: what the token may do; see scope.ts. */
  scope: string;
}

/** A request that asked for nothing beyond the spec's parameters. */
const plainGrant: RequestedGrant = { redirectUri: null, codeChallenge: null, scope: defaultScope, resource: null };

/** The user approved: a code for the organization they chose, returned in clear once. */
export async function approve(
  db: Database,
  secrets: SecretBox,
  input: { app: StoredApp; user: StoredUser; organizationId: string; now: Date; grant?: RequestedGrant },
): Promise<string> {
  if (!isMember(input.user, input.organizationId)) {
    throw new DomainError('not_found', 'you are not a member of that organization');
  }
  const code = randomCredential();
  const grant = input.grant ?? plainGrant;
  await db.oauthCodes.create({
    codeDigest: secrets.digest(code),
    appId: input.app._id,
    userId: input.user._id,
    organizationId: new Types.ObjectId(input.organizationId),
    expiresAt: new Date(input.now.getTime() + codeLifetimeMs),
    redirectUri: grant.redirectUri,
    codeChallenge: grant.codeChallenge,
    scope: grant.scope,
    resource: grant.resource,
  });
  return code;
}

/** The raw body of a token request, as parsed from JSON or a form. */
export interface TokenRequest {
  grant_type?: unknown;
  code?: unknown;
  client_id?: unknown;
  client_secret?: unknown;
  redirect_uri?: unknown;
  code_verifier?: unknown;
  resource?: unknown;
}

function field(request: TokenRequest, name: keyof TokenRequest): string {
  const value = request[name];
  if (typeof value !== 'string' || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/** An optional parameter: null when absent or empty (RFC 6749 §3.1 treats empty as omitted). */
function optionalField(request: TokenRequest, name: keyof TokenRequest): string | null {
  const value = request[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`);
  return value;
}

/**
 * RFC 6749 §4.1.3: a redirect_uri sent at authorize must be sent again, identical. One sent only
 * here must still be the app's, so an app learns of a misconfiguration rather than being ignored.
 */
function checkRedirectUri(request: TokenRequest, issued: { redirectUri?: string | null }, app: StoredApp): void {
  const sent = optionalField(request, 'redirect_uri');
  const expected = issued.redirectUri ?? null;
  if (expected !== null && sent === null) {
    throw new OAuthError('invalid_grant', 'redirect_uri is required: the authorization request carried one');
  }
  if (sent !== null && sent !== (expected ?? app.redirectUrl)) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request');
  }
}

/**
 * RFC 8707 §2.2: a token request may name the resource again; it must be the one the user
 * approved (no widening a code to another audience). One absent here keeps the approved one.
 */
function checkResource(request: TokenRequest, issued: { resource?: string | null }): void {
  const sent = optionalField(request, 'resource');
  if (sent !== null && sent !== (issued.resource ?? null)) {
    throw new OAuthError('invalid_target', 'resource differs from the one of the authorization request');
  }
}

/**
 * RFC 7636 §4.6: a code issued with a challenge needs its verifier. A verifier for a code issued
 * without one is refused too (RFC 9700 §2.1.1), so PKCE cannot be stripped from a request unseen.
 */
function checkVerifier(request: TokenRequest, issued: { codeChallenge?: string | null }): void {
  const verifier = optionalField(request, 'code_verifier');
  const challenge = issued.codeChallenge ?? null;
  if (challenge === null) {
    if (verifier !== null) throw new OAuthError('invalid_grant', 'code_verifier sent for a code issued without PKCE');
    return;
  }
  if (verifier === null) throw new OAuthError('invalid_grant', 'code_verifier is required: the code uses PKCE');
  if (!verifierMatches(verifier, challenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
}

/** RFC 6749 §4.1.2: a code presented again is refused and the token issued from it revoked. */
async function refuseUnusableCode(
  db: Database,
  caches: CacheInvalidation,
  appId: Types.ObjectId,
  codeDigest: string,
  now: Date,
): Promise<never> {
  const revokedTokens = await revokeGrantOfCode(db, caches, appId, codeDigest, now);
  if (revokedTokens === null) {
    throw new OAuthError('invalid_grant', 'the code is invalid, expired, revoked, or was issued to another app');
  }
  throw new OAuthError('invalid_grant', 'the code was already used; the access token issued from it is revoked', {
    reusedCode: { revokedTokens },
  });
}

/**
 * The app the token request authenticates as. A confidential app needs its secret. A public client
 * (dynamically registered with token_endpoint_auth_method "none") has none to send: its codes
 * always carry a PKCE challenge (checkAuthorizationRequest), and the verifier is its proof.
 */
async function authenticatedClient(
  db: Database,
  secrets: SecretBox,
  request: TokenRequest,
  clientId: string,
): Promise<StoredApp> {
  const app = await findAppByClientId(db, clientId);
  const digest = app?.clientSecretDigest ?? null;
  if (app !== null && digest === null) {
    if (optionalField(request, 'client_secret') !== null) {
      throw new OAuthError('invalid_client', 'this client is public: it has no secret to send');
    }
    return app;
  }
  const clientSecret = field(request, 'client_secret');
  if (app === null || digest === null || !secrets.matches(clientSecret, digest)) {
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  return app;
}

/**
 * RFC 6749 §4.1.3, with RFC 7636's verifier, once the client's credentials are known (from the
 * body or the Authorization header). Nothing here relies on a conditional update (not atomic on
 * FerretDB 1.24: measured, 6 of 8 racing exchanges passed one):
 * - of exchanges racing on one code, exactly one inserts its grant (unique index on codeDigest);
 *   every other one is a reuse of the code and revokes that grant;
 * - after inserting, the exchange re-reads its code and its app. A revoke deletes the user's codes
 *   before revoking their grants, and deleting an app removes the app before anything else, so a
 *   grant that a revoke or a delete could not see belongs to an exchange that sees its code or its
 *   app gone here, and revokes the grant itself.
 */
export async function exchangeCode(
  db: Database,
  secrets: SecretBox,
  caches: CacheInvalidation,
  request: TokenRequest,
  now: Date,
): Promise<TokenResponse> {
  const grantType = field(request, 'grant_type');
  if (grantType !== 'authorization_code') throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code');
  const code = field(request, 'code');
  const clientId = field(request, 'client_id');
  const app = await authenticatedClient(db, secrets, request, clientId);

  const codeDigest = secrets.digest(code);
  const issued = await db.oauthCodes.findOne({ codeDigest, appId: app._id, consumedAt: null, expiresAt: { $gt: now } }).lean();
  if (issued === null) return refuseUnusableCode(db, caches, app._id, codeDigest, now);
  // Before anything is written: a refused proof leaves the code to its rightful holder.
  checkRedirectUri(request, issued, app);
  checkVerifier(request, issued);
  checkResource(request, issued);
  // Defence in depth: a public client's code without a challenge would need no proof at all.
  if ((app.clientSecretDigest ?? null) === null && (issued.codeChallenge ?? null) === null) {
    throw new OAuthError('invalid_grant', 'a public client\'s code must have been issued with PKCE');
  }
  const organization = await db.organizations.findById(issued.organizationId).lean();
  if (organization === null) throw new OAuthError('invalid_grant', 'the organization of this code no longer exists');

  const accessToken = randomCredential('pos_');
  const tokenDigest = secrets.digest(accessToken);
  try {
    await db.oauthGrants.create({
      tokenDigest,
      appId: app._id,
      userId: issued.userId,
      organizationId: issued.organizationId,
      codeDigest,
      scope: issued.scope ?? defaultScope,
      resource: issued.resource ?? null,
    });
  } catch (error) {
    if (isDuplicateKey(error)) return refuseUnusableCode(db, caches, app._id, codeDigest, now);
    throw error;
  }
  const codeRemains = (await db.oauthCodes.exists({ _id: issued._id })) !== null;
  const appRemains = (await db.oauthApps.exists({ _id: app._id })) !== null;
  if (!codeRemains || !appRemains) {
    await db.oauthGrants.updateOne({ tokenDigest }, { $set: { revokedAt: now } });
    throw new OAuthError('invalid_grant', appRemains
      ? 'the user revoked this app while the code was being exchanged'
      : 'the app was deleted while the code was being exchanged');
  }
  await db.oauthCodes.updateOne({ _id: issued._id }, { $set: { consumedAt: now } });
  return {
    id: organization._id.toString(),
    cus: organization.billingCustomerId ?? null,
    access_token: accessToken,
    token_type: 'bearer',
    scope: issued.scope ?? defaultScope,
  };
}

/** Maintenance: codes past their lifetime (and used ones) are removed; expiry is enforced in queries regardless. */
export async function deleteExpiredCodes(db: Database, now: Date): Promise<number> {
  const result = await db.oauthCodes.deleteMany({ $or: [{ expiresAt: { $lte: now } }, { consumedAt: { $ne: null } }] });
  return result.deletedCount;
}
