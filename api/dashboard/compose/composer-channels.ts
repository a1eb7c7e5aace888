import type { Types } from 'mongoose';
import type { Database } from '../../../shared/db/database.ts';
import type { Channel } from '../../../shared/db/models/channel.ts';
import { findEachById } from '../../../shared/db/equality-queries.ts';
import { asObjectId } from '../../../shared/db/object-id.ts';
import { scheduleOfChannel } from '../../../shared/domain/channels/posting-schedule.ts';
import { findPlatform } from '../../../shared/platforms/platforms.ts';
import type { PlatformDefinition } from '../../../shared/platforms/kit/platform-definition.ts';

/** What the composer needs of a channel: who posts, where, in which time zone, with which limit. */
export interface ComposerChannel {
  id: string;
  name: string;
  provider: string;
  platform: PlatformDefinition;
  picture: string | null;
  profile: string | null;
  /** IANA zone of the channel's posting schedule: a date typed in the composer is read in it. */
  timeZone: string;
  /** The account's own limit (a Mastodon instance's), replacing the platform's as POST /posts does. */
  textLimit: number | null;
  /** False when the channel cannot publish now (disabled, or waiting to be reconnected). */
  usable: boolean;
}

/** Channels of one customer, or of none (`customer` null), in the order they were connected. */
export interface ChannelGroup {
  customer: string | null;
  channels: ComposerChannel[];
}

const fields = {
  name: 1, provider: 1, picture: 1, profile: 1, customerId: 1, timeZone: 1, textLimit: 1,
  postingSlots: 1, postingTimes: 1, disabled: 1, refreshNeeded: 1,
} as const;
type ReadChannel = Pick<Channel, keyof typeof fields> & { _id: Types.ObjectId };

/** The organization's channels on platforms SPS knows, grouped by customer (channels without one first). */
export async function composerChannels(db: Database, organizationId: string): Promise<ChannelGroup[]> {
  const organization = asObjectId(organizationId);
  if (organization === null) return [];
  const read = await db.channels.collection
    .find<ReadChannel>({ organizationId: organization, deletedAt: null }, { projection: fields })
    .sort({ createdAt: 1, _id: 1 })
    .toArray();
  const customerIds = read.flatMap((channel) => (channel.customerId ? [channel.customerId] : []));
  const customers = new Map((await findEachById(db.customers, customerIds))
    .map((customer) => [customer._id.toHexString(), customer.name]));
  const groups = new Map<string | null, ComposerChannel[]>([[null, []]]);
  for (const channel of read) {
    const platform = findPlatform(channel.provider);
    if (platform === undefined) continue;
    const customer = channel.customerId ? (customers.get(channel.customerId.toHexString()) ?? null) : null;
    const entry: ComposerChannel = {
      id: channel._id.toHexString(),
      name: channel.name,
      provider: channel.provider,
      platform,
      picture: channel.picture ?? null,
      profile: channel.profile ?? null,
      timeZone: scheduleOfChannel(channel).timeZone,
      textLimit: channel.textLimit ?? null,
      usable: !channel.disabled && !channel.refreshNeeded,
    };
    groups.set(customer, [...(groups.get(customer) ?? []), entry]);
  }
  return [...groups].filter(([, channels]) => channels.length > 0)
    .map(([customer, channels]) => ({ customer, channels }));
}
