import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import type { OAuthApp } from '../../db/models/oauth-app.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, notFound } from '../../errors.ts';

export type StoredApp = OAuthApp & { _id: Types.ObjectId };

export interface AppDetails {
  name: string;
  description?: string | undefined;
  pictureUrl?: string | undefined;
  redirectUrl: string;
}

export type RedirectUrlCheck = { ok: true; url: string } | { ok: false; problem: string; reason: string };

/**
 * Redirect URLs must be absolute http(s) without a fragment; http only on loopback (RFC 8252).
 * Shared by the dashboard's app form and dynamic client registration (client-registration.ts).
 */
export function checkedRedirectUrl(value: string): RedirectUrlCheck {
  let redirect: URL;
  try {
    redirect = new URL(value.trim());
  } catch {
    return { ok: false, problem: 'must be an absolute URL', reason: 'not a URL' };
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(redirect.hostname);
  if (redirect.protocol !== 'https:' && !(redirect.protocol === 'http:' && loopback)) {
    return { ok: false, problem: 'must use https (http is allowed for localhost only)', reason: 'https required' };
  }
  if (redirect.hash !== '') return { ok: false, problem: 'must not contain a fragment', reason: 'fragment' };
  return { ok: true, url: redirect.toString() };
}

interface CheckedDetails { name: string; description: string | null; pictureUrl: string | null; redirectUrl: string }

function checkedDetails(details: AppDetails): CheckedDetails {
  const name = details.name.trim();
  if (name === '' || name.length > 100) {
    const problems = [{ path: 'name', message: 'required' }];
    throw new DomainError('validation_failed', 'the app name needs 1 to 100 characters', problems);
  }
  const redirect = checkedRedirectUrl(details.redirectUrl);
  if (!redirect.ok) {
    const detail = { path: 'redirectUrl', message: redirect.reason };
    throw new DomainError('validation_failed', `the redirect URL ${redirect.problem}`, [detail]);
  }
  const picture = details.pictureUrl?.trim() ?? '';
  if (picture !== '' && !/^https?:\/\//.test(picture)) throw new DomainError('validation_failed', 'the picture must be an http(s) URL', [{ path: 'pictureUrl', message: 'not a URL' }]);
  const description = details.description?.trim() ?? '';
  return {
    name, description: description === '' ? null : description.slice(0, 500),
    pictureUrl: picture === '' ? null : picture, redirectUrl: redirect.url,
  };
}

/** Registers an app and returns it with its secret, the only time the secret is in clear. */
export async function registerApp(db: Database, secrets: SecretBox, organizationId: string, details: AppDetails): Promise<{ app: StoredApp; clientSecret: string }> {
  const clientSecret = randomCredential('pcs_');
  const app = await db.oauthApps.create({
    organizationId: new Types.ObjectId(organizationId),
    ...checkedDetails(details),
    clientId: `pca_${randomBytes(16).toString('hex')}`,
    clientSecretDigest: secrets.digest(clientSecret),
  });
  return { app: app.toObject(), clientSecret };
}

export async function organizationApp(db: Database, organizationId: string): Promise<StoredApp | null> {
  return db.oauthApps.findOne({ organizationId }).sort({ createdAt: 1 }).lean();
}

export async function findOwnedApp(db: Database, organizationId: string, appId: string): Promise<StoredApp> {
  const id = asObjectId(appId);
  const app = id === null ? null : await db.oauthApps.findOne({ _id: id, organizationId }).lean();
  if (app === null) throw notFound(`app ${JSON.stringify(appId)}`);
  return app;
}

export async function findAppByClientId(db: Database, clientId: string): Promise<StoredApp | null> {
  if (!/^pca_[0-9a-f]{32}$/.test(clientId)) return null;
  return db.oauthApps.findOne({ clientId }).lean();
}

export async function editApp(db: Database, organizationId: string, appId: string, details: AppDetails): Promise<void> {
  const app = await findOwnedApp(db, organizationId, appId);
  await db.oauthApps.updateOne({ _id: app._id }, { $set: checkedDetails(details) });
}

/** A new secret; the old one fails token exchange at once, issued tokens keep working. */
export async function rotateAppSecret(db: Database, secrets: SecretBox, organizationId: string, appId: string): Promise<string> {
  const app = await findOwnedApp(db, organizationId, appId);
  const clientSecret = randomCredential('pcs_');
  await db.oauthApps.updateOne({ _id: app._id }, { $set: { clientSecretDigest: secrets.digest(clientSecret) } });
  return clientSecret;
}

/**
 * Deletes an app for good. The app record goes first: from that moment every token it issued
 * fails (findOrganizationByAccessToken checks the app) and an exchange racing this delete sees the
 * app gone after inserting its grant and revokes it (exchangeCode). Then its grants are marked
 * revoked, so it leaves every user's approved apps, and its unused codes are dropped.
 */
export async function deleteApp(
  db: Database,
  caches: CacheInvalidation,
  organizationId: string,
  appId: string,
  now: Date,
): Promise<void> {
  const app = await findOwnedApp(db, organizationId, appId);
  await db.oauthApps.deleteOne({ _id: app._id });
  // Every api process forgets the app's tokens before the rest is tidied.
  await caches.changed([`app:${app._id.toString()}`]);
  await db.oauthGrants.updateMany({ appId: app._id, revokedAt: null }, { $set: { revokedAt: now } });
  await db.oauthCodes.deleteMany({ appId: app._id });
}
