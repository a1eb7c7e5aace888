import type { Database } from '../../db/database.ts';
import type { PlatformApps } from '../../platforms/platform-apps.ts';
import { findPlatformModule } from '../../platforms/platforms.ts';
import { missingReleaseId } from '../posts/missing-release-id.ts';
import { channelHealth, type ChannelHealth, type LastPublish } from './channel-health.ts';
import { findOwnedChannel, type ChannelView } from './channels.ts';
import type { StoredChannel } from './channel-tokens.ts';

/** One due post whose publish job a platform's 429 put off, and until when. */
export interface RateLimitDelay {
  postId: string;
  until: Date;
}

/**
 * The publish queue as channel health reads it: which of these posts' jobs wait for a platform's
 * rate-limit reset. SPS keeps no per-channel or per-account backoff of its own; a 429 delays the
 * job that met it (workers/processors/publish-post.ts), so those delayed jobs are the state.
 */
export interface RateLimitDelays {
  waitingForRateLimit(postIds: readonly string[]): Promise<RateLimitDelay[]>;
}

export interface ChannelHealthDeps {
  db: Database;
  platforms: PlatformApps;
  rateLimitDelays: RateLimitDelays;
  now: () => Date;
}

/** Due posts looked at for rate-limit delays: a delayed job's post is due, the newest are the ones waiting. */
const duePostsRead = 50;
/** Latest posts looked at to find the last publication (ordered by schedule, settled at different times). */
const settledPostsRead = 10;

/** What the platform's room asks for at connect; null for platforms that sign in without OAuth scopes. */
function requiredScopes(platforms: PlatformApps, provider: string): readonly string[] | null {
  const connect = findPlatformModule(provider)?.connect;
  if (connect?.kind !== 'oauth2') return null;
  const scopes = connect.provider(platforms.context(provider).app).scopes;
  return scopes.length === 0 ? null : scopes;
}

async function lastPublish(db: Database, channel: StoredChannel): Promise<LastPublish | null> {
  const settled = await db.posts
    .find({ channelId: channel._id, rootPostId: null, deletedAt: null, state: { $in: ['PUBLISHED', 'ERROR'] } })
    .sort({ publishDate: -1 })
    .limit(settledPostsRead)
    .lean();
  const withTimes = settled.map((post) => ({ post, at: post.publishedAt ?? post.updatedAt }));
  const latest = withTimes.reduce<(typeof withTimes)[number] | null>(
    (best, candidate) => (best === null || candidate.at.getTime() > best.at.getTime() ? candidate : best),
    null,
  );
  if (latest === null) return null;
  const { post, at } = latest;
  const failed = post.state === 'ERROR';
  return {
    postId: post._id.toString(),
    state: failed ? 'ERROR' : 'PUBLISHED',
    at,
    releaseURL: post.releaseURL ?? null,
    error: failed
      ? {
        code: post.releaseId === missingReleaseId ? 'unconfirmed' : 'publish_failed',
        message: post.error ?? 'the post failed without a recorded reason',
      }
      : null,
  };
}

async function rateLimitState(
  deps: ChannelHealthDeps,
  channel: StoredChannel,
): Promise<{ until: Date | null; waiting: number }> {
  const due = await deps.db.posts
    .find({
      channelId: channel._id, rootPostId: null, deletedAt: null, state: 'QUEUE', publishDate: { $lte: deps.now() },
    })
    .select({ _id: 1 })
    .sort({ publishDate: -1 })
    .limit(duePostsRead)
    .lean();
  if (due.length === 0) return { until: null, waiting: 0 };
  const delays = await deps.rateLimitDelays.waitingForRateLimit(due.map((post) => post._id.toString()));
  const now = deps.now().getTime();
  const current = delays.filter((delay) => delay.until.getTime() > now);
  const latest = current.reduce<Date | null>(
    (max, delay) => (max === null || delay.until > max ? delay.until : max),
    null,
  );
  return { until: latest, waiting: current.length };
}

/** Gathers the facts of one stored channel and judges them. */
export async function healthOfChannel(deps: ChannelHealthDeps, channel: StoredChannel): Promise<ChannelHealth> {
  const provider = channel.provider;
  const [published, limited] = [await lastPublish(deps.db, channel), await rateLimitState(deps, channel)];
  const renewable =
    (channel.refreshTokenSealed ?? null) !== null && deps.platforms.refresherFor(provider) !== undefined;
  return channelHealth({
    channelId: channel._id.toString(),
    provider,
    disabled: channel.disabled,
    refreshNeeded: channel.refreshNeeded,
    token: {
      expiresAt: channel.tokenExpiresAt ?? null,
      renewable,
      lastRefreshedAt: channel.tokenRefreshedAt ?? null,
    },
    // Platforms do not report back which scopes a token carries to SPS, and the connect step does not keep them.
    scopes: { required: requiredScopes(deps.platforms, provider), granted: null },
    lastPublish: published,
    rateLimitedUntil: limited.until,
    postsWaitingForRateLimit: limited.waiting,
    now: deps.now(),
  });
}

/** GET /integrations/:id/health: a channel of the organization, or not_found. */
export async function readChannelHealth(
  deps: ChannelHealthDeps,
  organizationId: string,
  channelId: string,
): Promise<ChannelHealth> {
  return healthOfChannel(deps, await findOwnedChannel(deps.db, organizationId, channelId));
}

/** The health of each listed channel (the dashboard's list), by channel id. */
export async function healthOfListedChannels(
  deps: ChannelHealthDeps,
  organizationId: string,
  channels: readonly ChannelView[],
): Promise<Map<string, ChannelHealth>> {
  const healths = new Map<string, ChannelHealth>();
  // One channel after the other: a list is a few channels, and each read is a handful of indexed queries.
  for (const listed of channels) {
    healths.set(listed.id, await readChannelHealth(deps, organizationId, listed.id));
  }
  return healths;
}
