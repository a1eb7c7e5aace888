import { Types } from 'mongoose';
import { hashPassword, passwordHashLogN, unmatchableHash, verifyPassword } from '../../crypto/password.ts';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { findEachById } from '../../db/equality-queries.ts';
import type { User } from '../../db/models/user.ts';
import { DomainError } from '../../errors.ts';
import { createOrganization } from '../organizations/organizations.ts';

export type StoredUser = User & { _id: Types.ObjectId };

export const minimumPasswordLength = 10;

/** The longest address SMTP carries (RFC 5321's path limit less its angle brackets). */
const maxEmailLength = 254;

/**
 * One `@` between non-blank parts, and a dot inside the domain (neither first nor last). The
 * length is checked first, and the pattern leaves the dot to code: `[^\s@]+\.[^\s@]+` let a
 * 60 KB address of dots hold the api for seconds, the dot being tried at every place.
 */
function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  const invalid = (): DomainError => new DomainError(
    'validation_failed', 'enter a valid email address', [{ path: 'email', message: 'not an email address' }],
  );
  if (trimmed.length > maxEmailLength || !/^[^\s@]+@[^\s@]+$/.test(trimmed)) throw invalid();
  const domain = trimmed.slice(trimmed.indexOf('@') + 1);
  if (!domain.slice(1, -1).includes('.')) throw invalid();
  return trimmed;
}

/** PASSWORD_HASH_LOG_N: the scrypt cost of new hashes, and of the check an unknown email gets. */
export interface PasswordCost {
  passwordHashLogN: number;
}

const defaultCost: PasswordCost = { passwordHashLogN: passwordHashLogN.default };

const emailTaken = (): DomainError =>
  new DomainError('conflict', 'an account with this email already exists; log in instead');

/** Creates the user and their first organization; the password is hashed at `cost` (the default unless told). */
export async function signUp(
  db: Database,
  secrets: SecretBox,
  input: { email: string; password: string; organizationName: string },
  cost: PasswordCost = defaultCost,
): Promise<{ user: StoredUser; organizationId: string }> {
  const email = normaliseEmail(input.email);
  if (input.password.length < minimumPasswordLength || input.password.length > 1024) {
    throw new DomainError('validation_failed', `the password needs at least ${minimumPasswordLength} characters`, [{ path: 'password', message: 'too short' }]);
  }
  if ((await db.users.exists({ email })) !== null) throw emailTaken();
  const passwordHash = await hashPassword(input.password, cost.passwordHashLogN);
  const { organizationId } = await createOrganization(db, secrets, { name: input.organizationName });
  try {
    const user = await db.users.create({ email, passwordHash, organizationIds: [new Types.ObjectId(organizationId)] });
    return { user: user.toObject(), organizationId };
  } catch (error) {
    // Two sign-ups racing on one email: the unique index decides; the loser's organization goes.
    await db.organizations.deleteOne({ _id: organizationId });
    if (isDuplicateKey(error)) throw emailTaken();
    throw error;
  }
}

/**
 * The user whose email and password match, or null: callers say nothing about which was wrong. `cost` is
 * the one new hashes are made at, so an unknown email takes as long as a known one.
 */
export async function checkCredentials(
  db: Database,
  input: { email: string; password: string },
  cost: PasswordCost = defaultCost,
): Promise<StoredUser | null> {
  const email = input.email.trim().toLowerCase();
  const user = await db.users.findOne({ email }).lean();
  if (user === null) {
    // Spend the same time as a real check, so response times do not tell which emails exist.
    await verifyPassword(input.password, unmatchableHash(cost.passwordHashLogN));
    return null;
  }
  return (await verifyPassword(input.password, user.passwordHash)) ? user : null;
}

export async function userOrganizations(db: Database, user: StoredUser): Promise<{ id: string; name: string }[]> {
  const organizations = await findEachById(db.organizations, user.organizationIds);
  organizations.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return organizations.map((organization) => ({ id: organization._id.toString(), name: organization.name }));
}

export function isMember(user: StoredUser, organizationId: string): boolean {
  if (!/^[0-9a-f]{24}$/i.test(organizationId)) return false;
  const wanted = new Types.ObjectId(organizationId);
  return user.organizationIds.some((id) => wanted.equals(id));
}

/** Another organization for an existing user (an agency with several clients, say). */
export async function addOrganization(db: Database, secrets: SecretBox, user: StoredUser, name: string): Promise<string> {
  const { organizationId } = await createOrganization(db, secrets, { name });
  await db.users.updateOne({ _id: user._id }, { $addToSet: { organizationIds: new Types.ObjectId(organizationId) } });
  return organizationId;
}

/** The organization's API key in clear, from its sealed copy, for the settings page. */
export async function revealApiKey(db: Database, secrets: SecretBox, organizationId: string): Promise<string> {
  const organization = await db.organizations.findById(organizationId).lean();
  if (organization === null) throw new DomainError('not_found', 'organization not found');
  return secrets.open(organization.apiKeySealed);
}

/** A new API key; the old one stops working at once. */
export async function rotateApiKey(
  db: Database,
  secrets: SecretBox,
  caches: CacheInvalidation,
  organizationId: string,
): Promise<string> {
  const apiKey = randomCredential('sps_');
  const sealed = { apiKeyDigest: secrets.digest(apiKey), apiKeySealed: secrets.seal(apiKey) };
  await db.organizations.updateOne({ _id: organizationId }, { $set: sealed });
  // The old key may be cached by every api process: each forgets it before the new key is shown.
  await caches.changed([`organization:${organizationId}`]);
  return apiKey;
}
