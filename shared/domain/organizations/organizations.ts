import { Types } from 'mongoose';
import { randomCredential, type SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';

export interface CreatedOrganization {
  organizationId: string;
  /** Shown once here; afterwards only the dashboard can reveal it from the sealed copy. */
  apiKey: string;
}

/** The prefix makes leaked keys recognisable to secret scanners. */
const apiKeyPrefix = 'sps_';

export async function createOrganization(db: Database, secrets: SecretBox, input: { name: string }): Promise<CreatedOrganization> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) {
    throw new DomainError('validation_failed', 'an organization name must have 1 to 200 characters');
  }
  const apiKey = randomCredential(apiKeyPrefix);
  const organization = await db.organizations.create({
    name,
    apiKeyDigest: secrets.digest(apiKey),
    apiKeySealed: secrets.seal(apiKey),
  });
  return { organizationId: organization._id.toString(), apiKey };
}

export interface AuthenticatedOrganization {
  id: string;
  name: string;
  billingCustomerId: string | null;
}

/** Looks an organization up by its API key; null when no organization has that key. */
export async function findOrganizationByApiKey(db: Database, secrets: SecretBox, apiKey: string): Promise<AuthenticatedOrganization | null> {
  if (!apiKey.startsWith(apiKeyPrefix)) return null;
  const organization = await db.organizations.findOne({ apiKeyDigest: secrets.digest(apiKey) }).lean();
  if (organization === null) return null;
  return { id: organization._id.toString(), name: organization.name, billingCustomerId: organization.billingCustomerId ?? null };
}

/** The organization a credential (named key, OAuth token) acts for, read by id; null when it is gone. */
export async function authenticatedOrganization(
  db: Database,
  organizationId: Types.ObjectId,
): Promise<AuthenticatedOrganization | null> {
  const organization = await db.organizations.findById(organizationId).lean();
  if (organization === null) return null;
  return {
    id: organization._id.toString(), name: organization.name,
    billingCustomerId: organization.billingCustomerId ?? null,
  };
}

export async function organizationExists(db: Database, organizationId: string): Promise<boolean> {
  if (!Types.ObjectId.isValid(organizationId)) return false;
  return (await db.organizations.exists({ _id: organizationId })) !== null;
}
