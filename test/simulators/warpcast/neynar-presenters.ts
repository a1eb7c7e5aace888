import type { SimulatedCast, SimulatedChannel, SimulatedFarcasterUser } from './neynar-simulator.ts';

// How the Neynar simulator shows its records: users, casts and channels with every field Neynar's
// schemas require (held to its description, operations.json).

/** When the simulated accounts registered, and the simulated channels were made when none was recorded. */
export const simulatedEpoch = '2023-10-01T00:00:00.000Z';

/**
 * A user as Neynar's User schema has it: every field it always sends, with what the simulator
 * knows and empty lists for what it does not track. A name or picture the account never set is
 * null, as the schema types them.
 */
export function userBody(fid: number, user: SimulatedFarcasterUser | undefined): Record<string, unknown> {
  return {
    object: 'user',
    fid,
    // An account without an fname goes by `!<fid>` in Neynar's answers.
    username: user?.username ?? `!${String(fid)}`,
    display_name: user?.displayName ?? null,
    pfp_url: user?.pfpUrl ?? null,
    custody_address: `0x${fid.toString(16).padStart(40, '0')}`,
    registered_at: simulatedEpoch,
    profile: { bio: { text: '' } },
    follower_count: user?.followers ?? 0,
    following_count: 0,
    verifications: [],
    auth_addresses: [],
    verified_addresses: { eth_addresses: [], sol_addresses: [], primary: { eth_address: null, sol_address: null } },
    verified_accounts: [],
  };
}

/** Where a cast sits in its thread: the thread's first cast, and the channel that cast was made in. */
export interface CastThread {
  threadHash: string;
  rootParentUrl: string | null;
  channel: SimulatedChannel | undefined;
}

export function castBody(
  cast: SimulatedCast,
  author: SimulatedFarcasterUser | undefined,
  replies: number,
  thread: CastThread,
): Record<string, unknown> {
  const { channel } = thread;
  return {
    object: 'cast',
    hash: cast.hash,
    thread_hash: thread.threadHash,
    parent_hash: cast.parentHash,
    parent_url: cast.parentUrl,
    root_parent_url: thread.rootParentUrl,
    parent_author: { fid: cast.parentAuthorFid },
    author: userBody(cast.fid, author),
    text: cast.text,
    timestamp: cast.timestamp,
    embeds: cast.embeds,
    // Neynar lists a few of the reactions beside the counts; the simulator keeps counts only.
    reactions: { likes: [], recasts: [], likes_count: cast.likes, recasts_count: cast.recasts },
    replies: { count: replies },
    mentioned_profiles: [],
    mentioned_profiles_ranges: [],
    mentioned_channels: [],
    mentioned_channels_ranges: [],
    channel: channel === undefined ? null : { object: 'channel_dehydrated', id: channel.id, name: channel.name },
  };
}

export function channelBody(channel: SimulatedChannel, createdAt: string): Record<string, unknown> {
  return {
    object: 'channel',
    id: channel.id,
    url: channel.url,
    name: channel.name,
    image_url: `https://imagedelivery.net/${channel.id}.png`,
    follower_count: channel.followers.length,
    created_at: createdAt,
  };
}
