import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { AuthenticatedOrganization } from '../organizations/organizations.ts';
import { isMember, type StoredUser } from '../accounts/accounts.ts';
import { DomainError } from '../../errors.ts';
import { findAppByClientId, type StoredApp } from './oauth-apps.ts';
import { OAuthError } from './oauth-error.ts';

/** The spec: an authorization code lives 10 minutes and is single use. */
export const codeLifetimeMs = 10 * 60 * 1000;

export interface TokenResponse {
  id: string;
  cus: string | null;
  access_token: string;
  token_type: 'bearer';
}

/** What the consent page needs; null when the client id or response type is not acceptable. */
export async function authorizationRequest(db: Database, query: { clientId: string; responseType: string }): Promise<StoredApp | null> {
  if (query.responseType !== 'code') return null;
  return findAppByClientId(db, query.clientId);
}

/** The user approved: a code for the organization they chose, returned in clear once. */
export async function approve(db: Database, secrets: SecretBox, input: { app: StoredApp; user: StoredUser; organizationId: string; now: Date }): Promise<string> {
  if (!isMember(input.user, input.organizationId)) throw new DomainError('not_found', 'you are not a member of that organization');
  const code = randomCredential();
  await db.oauthCodes.create({
    codeDigest: secrets.digest(code),
    appId: input.app._id,
    userId: input.user._id,
    organizationId: new Types.ObjectId(input.organizationId),
    expiresAt: new Date(input.now.getTime() + codeLifetimeMs),
  });
  return code;
}

/** The raw body of a token request, as parsed from JSON or a form. */
export interface TokenRequest {
  grant_type?: unknown;
  code?: unknown;
  client_id?: unknown;
  client_secret?: unknown;
}

function field(request: TokenRequest, name: keyof TokenRequest): string {
  const value = request[name];
  if (typeof value !== 'string' || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/**
 * RFC 6749 §4.1.3 for the spec's body fields. Two exchanges racing on one code give exactly one
 * token: redeeming is guarded by a unique index, not by a read-then-write.
 */
export async function exchangeCode(db: Database, secrets: SecretBox, request: TokenRequest, now: Date): Promise<TokenResponse> {
  const grantType = field(request, 'grant_type');
  if (grantType !== 'authorization_code') throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code');
  const code = field(request, 'code');
  const clientId = field(request, 'client_id');
  const clientSecret = field(request, 'client_secret');

  const app = await findAppByClientId(db, clientId);
  if (app === null || !secrets.matches(clientSecret, app.clientSecretDigest)) throw new OAuthError('invalid_client', 'client authentication failed');

  const codeDigest = secrets.digest(code);
  const issued = await db.oauthCodes.findOne({ codeDigest, appId: app._id, consumedAt: null, expiresAt: { $gt: now } }).lean();
  if (issued === null) throw new OAuthError('invalid_grant', 'the code is invalid, expired, already used, or was issued to another app');
  const organization = await db.organizations.findById(issued.organizationId).lean();
  if (organization === null) throw new OAuthError('invalid_grant', 'the organization of this code no longer exists');

  // The unique index on the grant's codeDigest makes this insert the one atomic step: of two
  // exchanges racing on one code, exactly one inserts. (A conditional findOneAndUpdate is not
  // atomic on FerretDB 1.24: measured, 6 of 8 racing exchanges passed it.)
  const accessToken = randomCredential('pos_');
  try {
    await db.oauthGrants.create({ tokenDigest: secrets.digest(accessToken), appId: app._id, userId: issued.userId, organizationId: issued.organizationId, codeDigest });
  } catch (error) {
    if (error instanceof Error && /duplicate key|E11000/i.test(error.message)) throw new OAuthError('invalid_grant', 'the code was already used');
    throw error;
  }
  await db.oauthCodes.updateOne({ _id: issued._id }, { $set: { consumedAt: now } });
  return { id: organization._id.toString(), cus: organization.billingCustomerId ?? null, access_token: accessToken, token_type: 'bearer' };
}

/** The organization an access token acts for, or null when it is unknown or revoked. */
export async function findOrganizationByAccessToken(db: Database, secrets: SecretBox, token: string): Promise<AuthenticatedOrganization | null> {
  if (!token.startsWith('pos_')) return null;
  const grant = await db.oauthGrants.findOne({ tokenDigest: secrets.digest(token), revokedAt: null }).lean();
  if (grant === null) return null;
  const organization = await db.organizations.findById(grant.organizationId).lean();
  if (organization === null) return null;
  return { id: organization._id.toString(), name: organization.name, billingCustomerId: organization.billingCustomerId ?? null };
}

export interface ApprovedApp {
  appId: string;
  name: string;
  description: string | null;
  pictureUrl: string | null;
  organizationName: string;
  approvedAt: Date;
}

/** The apps a user has live tokens for, one row per app and organization. */
export async function approvedApps(db: Database, userId: Types.ObjectId): Promise<ApprovedApp[]> {
  const grants = await db.oauthGrants.find({ userId, revokedAt: null }).sort({ createdAt: -1 }).lean();
  const apps = new Map((await db.oauthApps.find({ _id: { $in: grants.map((grant) => grant.appId) } }).lean()).map((app) => [app._id.toString(), app]));
  const organizations = new Map((await db.organizations.find({ _id: { $in: grants.map((grant) => grant.organizationId) } }).lean()).map((organization) => [organization._id.toString(), organization]));
  const seen = new Set<string>();
  return grants.flatMap((grant) => {
    const app = apps.get(grant.appId.toString());
    const key = `${grant.appId.toString()}:${grant.organizationId.toString()}`;
    if (app === undefined || seen.has(key)) return [];
    seen.add(key);
    return [{ appId: app._id.toString(), name: app.name, description: app.description ?? null, pictureUrl: app.pictureUrl ?? null, organizationName: organizations.get(grant.organizationId.toString())?.name ?? '', approvedAt: grant.createdAt }];
  });
}

/** The user's revoke: every token this user holds for the app stops working. */
export async function revokeApp(db: Database, userId: Types.ObjectId, appId: string, now: Date): Promise<number> {
  if (!Types.ObjectId.isValid(appId)) return 0;
  const result = await db.oauthGrants.updateMany({ userId, appId: new Types.ObjectId(appId), revokedAt: null }, { $set: { revokedAt: now } });
  return result.modifiedCount;
}

/** Maintenance: codes past their lifetime (and used ones) are removed; expiry is enforced in queries regardless. */
export async function deleteExpiredCodes(db: Database, now: Date): Promise<number> {
  const result = await db.oauthCodes.deleteMany({ $or: [{ expiresAt: { $lte: now } }, { consumedAt: { $ne: null } }] });
  return result.deletedCount;
}
