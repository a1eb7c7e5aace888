import { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import type { Channel } from '../../db/models/channel.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, notFound } from '../../errors.ts';
import { assertPublicOrigin, type AddressPolicy } from '../../net/address-policy.ts';
import { findPlatform } from '../../platforms/platforms.ts';
import type { PublishScheduler } from '../posts/publish-scheduler.ts';
import { findOrCreateCustomer } from '../customers/customers.ts';
import { organizationExists } from '../organizations/organizations.ts';

export interface AddTokenChannelInput {
  organizationId: string;
  /** Name of the organization's customer the channel belongs to; created when new. */
  customer?: string | undefined;
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
 * Stores a channel from a token already held, without asking the platform: the fixtures of the
 * tests and the benchmark's seeding use it. Users connect through connect-channel.ts (OAuth) and
 * connect-with-credentials.ts, which check with the platform first. The instance must still be
 * a public server, and the token is sealed before it touches the database.
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

  const customer = input.customer === undefined ? null : await findOrCreateCustomer(db, input.organizationId, input.customer);
  const channel = await db.channels.create({
    organizationId: new Types.ObjectId(input.organizationId),
    customerId: customer?._id ?? null,
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

/** What the list shows of a channel: its tokens and settings stay in the database. */
const listedFields = {
  name: 1, provider: 1, picture: 1, disabled: 1, refreshNeeded: 1, profile: 1, customerId: 1,
} as const;
type ListedChannel = Pick<Channel, keyof typeof listedFields> & { _id: Types.ObjectId };

/**
 * The organization's channels, oldest first. Read with the driver: `GET /integrations` is one of
 * the api's hot reads, and Mongoose's query building cost about as much CPU as the driver's own
 * work. The filter is plain equalities on ObjectIds, nothing to cast.
 */
export async function listChannels(db: Database, organizationId: string, filter: { customer?: string | undefined } = {}): Promise<ChannelView[]> {
  const organization = asObjectId(organizationId);
  if (organization === null) return [];
  const query: Record<string, unknown> = { organizationId: organization, deletedAt: null };
  if (filter.customer !== undefined) {
    const customerId = asObjectId(filter.customer);
    // An id that cannot be a customer matches no channel (not the channels without a customer).
    if (customerId === null) return [];
    query.customerId = customerId;
  }
  const channels = await db.channels.collection
    .find<ListedChannel>(query, { projection: listedFields })
    .sort({ createdAt: 1, _id: 1 })
    .toArray();
  const customerIds = channels.flatMap((channel) => (channel.customerId === null || channel.customerId === undefined ? [] : [channel.customerId]));
  const customers = await findEachById(db.customers, customerIds);
  const customerById = new Map(customers.map((customer) => [customer._id.toString(), customer]));
  return channels.map((channel) => {
    const customer = channel.customerId === null || channel.customerId === undefined ? undefined : customerById.get(channel.customerId.toString());
    return {
      id: channel._id.toString(),
      name: channel.name,
      identifier: channel.provider,
      picture: channel.picture ?? null,
      disabled: channel.disabled,
      refreshNeeded: channel.refreshNeeded,
      profile: channel.profile ?? null,
      ...(customer === undefined ? {} : { customer: { id: customer._id.toString(), name: customer.name } }),
    };
  });
}

/** A channel the organization owns (not deleted); anything else is "not found". */
export async function findOwnedChannel(db: Database, organizationId: string, channelId: string): Promise<Channel & { _id: Types.ObjectId }> {
  const id = asObjectId(channelId);
  const channel = id === null ? null : await db.channels.findOne({ _id: id, organizationId, deletedAt: null }).lean();
  if (channel === null) throw notFound(`channel ${JSON.stringify(channelId)}`);
  return channel;
}

/**
 * Disconnects a channel: its unpublished posts go with it and their jobs are cancelled. A post
 * being published at this moment finishes; it finds its channel gone for any later part.
 */
export async function deleteChannel(
  deps: { db: Database; scheduler: PublishScheduler; caches: CacheInvalidation; now: () => Date },
  organizationId: string,
  channelId: string,
): Promise<{ id: string; deleted: true }> {
  const channel = await findOwnedChannel(deps.db, organizationId, channelId);
  const pending = await deps.db.posts.find({ channelId: channel._id, rootPostId: null, deletedAt: null, state: { $in: ['QUEUE', 'DRAFT', 'ERROR'] } }).lean();
  for (const post of pending) await deps.scheduler.cancel(post._id.toString());
  const deletedAt = deps.now();
  await deps.db.posts.updateMany({ channelId: channel._id, deletedAt: null, releaseId: null }, { $set: { deletedAt } });
  await deps.db.channels.updateOne({ _id: channel._id }, { $set: { deletedAt } });
  // From now on POST /posts on any api process refuses the channel.
  await deps.caches.changed([`channel:${channel._id.toString()}`]);
  return { id: channel._id.toString(), deleted: true };
}
