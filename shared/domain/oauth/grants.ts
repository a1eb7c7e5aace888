import { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import { authenticatedOrganization, type AuthenticatedOrganization } from '../organizations/organizations.ts';
import type { ApiScope } from '../api-keys/scopes.ts';
import { apiScopesOf } from './scope.ts';

/**
 * Grants: the access tokens users' approvals turned into. A token is live only while its grant
 * is not revoked AND its app still exists, so whatever order a revoke, an app's deletion and a
 * racing code exchange land in on FerretDB (no transactions, no atomic conditional update), a
 * grant written behind a revoke's or a delete's back is dead all the same.
 */

/** Whom an access token acts for, and the app it was issued to (its tokens die with the app). */
export interface AccessTokenHolder {
  organization: AuthenticatedOrganization;
  appId: string;
  /** What the token may do on the public API (api/middleware/authorize.ts). */
  scopes: readonly ApiScope[];
  /** RFC 8707: the resource the token was issued for; null when its request named none. */
  resource: string | null;
}

/** The organization an access token acts for, or null when it is unknown, revoked, or its app is gone. */
export async function findOrganizationByAccessToken(
  db: Database,
  secrets: SecretBox,
  token: string,
): Promise<AccessTokenHolder | null> {
  if (!token.startsWith('pos_')) return null;
  const grant = await db.oauthGrants.findOne({ tokenDigest: secrets.digest(token), revokedAt: null }).lean();
  if (grant === null) return null;
  // Deleting an app removes its record first: from then on none of its tokens passes here.
  if ((await db.oauthApps.exists({ _id: grant.appId })) === null) return null;
  const organization = await authenticatedOrganization(db, grant.organizationId);
  if (organization === null) return null;
  return {
    organization,
    appId: grant.appId.toString(),
    scopes: apiScopesOf(grant.scope ?? null),
    resource: grant.resource ?? null,
  };
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
  const appIds = grants.map((grant) => grant.appId);
  const organizationIds = grants.map((grant) => grant.organizationId);
  const apps = new Map((await findEachById(db.oauthApps, appIds))
    .map((app) => [app._id.toString(), app]));
  const organizations = new Map((await findEachById(db.organizations, organizationIds))
    .map((organization) => [organization._id.toString(), organization]));
  const seen = new Set<string>();
  return grants.flatMap((grant) => {
    // A grant whose app is gone is dead (see findOrganizationByAccessToken): nothing to show or revoke.
    const app = apps.get(grant.appId.toString());
    const key = `${grant.appId.toString()}:${grant.organizationId.toString()}`;
    if (app === undefined || seen.has(key)) return [];
    seen.add(key);
    return [{
      appId: app._id.toString(),
      name: app.name,
      description: app.description ?? null,
      pictureUrl: app.pictureUrl ?? null,
      organizationName: organizations.get(grant.organizationId.toString())?.name ?? '',
      approvedAt: grant.createdAt,
    }];
  });
}

/**
 * The user's revoke: every token this user holds for the app stops working, and so does every
 * code they approved that the app has not exchanged yet. The codes go first: an exchange re-reads
 * its code after inserting its grant (exchangeCode), so a grant inserted after the update below
 * was inserted after the codes were gone, and its exchange revokes it itself.
 */
export async function revokeApp(
  db: Database,
  caches: CacheInvalidation,
  userId: Types.ObjectId,
  appId: string,
  now: Date,
): Promise<number> {
  if (!Types.ObjectId.isValid(appId)) return 0;
  const app = new Types.ObjectId(appId);
  await db.oauthCodes.deleteMany({ userId, appId: app });
  const result = await db.oauthGrants.updateMany(
    { userId, appId: app, revokedAt: null },
    { $set: { revokedAt: now } },
  );
  // Every api process forgets the app's tokens (other users' ones are simply read again).
  await caches.changed([`app:${appId}`]);
  return result.modifiedCount;
}

/**
 * RFC 6749 §4.1.2: a code presented again revokes the token issued from it. Returns null when no
 * token was ever issued from this code for this app, else how many live tokens were revoked now.
 */
export async function revokeGrantOfCode(
  db: Database,
  caches: CacheInvalidation,
  appId: Types.ObjectId,
  codeDigest: string,
  now: Date,
): Promise<number | null> {
  const grant = await db.oauthGrants.findOne({ appId, codeDigest }).lean();
  if (grant === null) return null;
  const result = await db.oauthGrants.updateMany({ appId, codeDigest, revokedAt: null }, { $set: { revokedAt: now } });
  await caches.changed([`app:${appId.toString()}`]);
  return result.modifiedCount;
}
