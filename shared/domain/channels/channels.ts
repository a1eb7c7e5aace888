import { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { DomainError, notFound } from '../../errors.ts';
import { assertPublicOrigin, type AddressPolicy } from '../../net/address-policy.ts';
import { findPlatform } from '../../platforms/registry/registry.ts';
import { organizationExists } from '../organizations/organizations.ts';

export interface AddTokenChannelInput {
  organizationId: string;
  provider: string;
  name: string;
  /** Required for federated platforms (Mastodon); the server the account lives on. */
  instanceUrl?: string | undefined;
  token: string;
  profile?: string | undefined;
  picture?: string | undefined;
}

/** Platforms whose channel is one server-issued token plus the server's address. */
const federatedProviders = new Set(['mastodon']);

/**
 * Connects a channel from a token the user already holds (no OAuth round trip): the instance
 * must be a public server, and the token is sealed before it touches the database.
 */
export async function addTokenChannel(db: Database, secrets: SecretBox, policy: AddressPolicy, input: AddTokenChannelInput): Promise<{ id: string }> {
  if (!(await organizationExists(db, input.organizationId))) throw notFound(`organization ${input.organizationId}`);
  const platform = findPlatform(input.provider);
  if (platform === undefined || !federatedProviders.has(platform.identifier)) {
    throw new DomainError('validation_failed', `"${input.provider}" cannot be connected with a token; supported: ${[...federatedProviders].join(', ')}`);
  }
  if (input.name.trim() === '') throw new DomainError('validation_failed', 'a channel needs a name');
  if (input.token.trim() === '') throw new DomainError('validation_failed', 'a channel needs its access token');
  if (input.instanceUrl === undefined) throw new DomainError('validation_failed', `${platform.displayName} channels need the instance URL`);
  const instanceUrl = await assertPublicOrigin(input.instanceUrl, policy);

  const channel = await db.channels.create({
    organizationId: new Types.ObjectId(input.organizationId),
    provider: platform.identifier,
    name: input.name.trim(),
    profile: input.profile ?? null,
    picture: input.picture ?? null,
    instanceUrl,
    tokenSealed: secrets.seal(input.token.trim()),
  });
  return { id: channel._id.toString() };
}

export interface ChannelView {
  id: string;
  name: string;
  identifier: string;
  picture: string | null;
  disabled: boolean;
  refreshNeeded: boolean;
  profile: string | null;
  customer?: { id: string; name: string };
}

export async function listChannels(db: Database, organizationId: string): Promise<ChannelView[]> {
  const channels = await db.channels.find({ organizationId, deletedAt: null }).sort({ createdAt: 1, _id: 1 }).lean();
  return channels.map((channel) => ({
    id: channel._id.toString(),
    name: channel.name,
    identifier: channel.provider,
    picture: channel.picture ?? null,
    disabled: channel.disabled,
    refreshNeeded: channel.refreshNeeded,
    profile: channel.profile ?? null,
  }));
}
