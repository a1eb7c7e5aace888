import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { missingReleaseId } from '../posts/missing-release-id.ts';
import type { AnalyticsCounter, ChannelCredentials } from '../../platforms/kit/platform-adapter.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import type { AdapterSet } from '../../platforms/platforms.ts';
import type { ChannelTokens } from '../channels/channel-tokens.ts';
import { recordReading } from './analytics-days.ts';

export interface GatherSettings {
  /** Posts published within this many days get their counters read. */
  postDays: number;
  /** At most this many posts per channel and run, newest first. */
  postsPerRun: number;
  /**
   * Least time between two calls to one platform account: gathering takes its turn after the
   * account's publishing and never bursts (each platform's own limit is far above one a second).
   */
  paceMs: number;
}

export interface GatherDeps {
  db: Database;
  adapters: AdapterSet;
  tokens: ChannelTokens;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
}

export type GatherOutcome =
  | { kind: 'gathered'; posts: number }
  | { kind: 'skipped'; reason: string };

/**
 * Reads one channel's counters and its recent posts' counters through the platform's analytics
 * reads and stores them as today's buckets. A channel that must be reconnected, or whose platform
 * has no analytics, is skipped (never retried forever); the platform's "too many requests" is
 * thrown for the job to wait out, and what was read before it stays stored.
 */
export async function gatherChannelAnalytics(
  deps: GatherDeps,
  channelId: string,
  settings: GatherSettings,
): Promise<GatherOutcome> {
  const channel = await deps.db.channels.findOne({ _id: channelId, deletedAt: null }).lean();
  if (channel === null) return { kind: 'skipped', reason: 'the channel was removed' };
  if (channel.disabled) return { kind: 'skipped', reason: 'the channel is disabled' };
  if (channel.refreshNeeded) return { kind: 'skipped', reason: 'the channel must be reconnected' };
  const reads = deps.adapters.get(channel.provider)?.analytics;
  if (reads === undefined) return { kind: 'skipped', reason: `${channel.provider} has no analytics` };

  let calls = 0;
  /** One paced call with the channel's fresh token; a refused token ends the run as skipped. */
  const read = async (call: (credentials: ChannelCredentials) => Promise<AnalyticsCounter[]>) => {
    if (calls > 0) await deps.sleep(settings.paceMs);
    calls += 1;
    return deps.tokens.run(channel, call);
  };
  const store = (subject: 'channel' | 'post', subjectId: Types.ObjectId, counters: AnalyticsCounter[]) =>
    recordReading(deps.db, {
      organizationId: channel.organizationId, channelId: channel._id, subject, subjectId, counters, at: deps.now(),
    });

  try {
    await store('channel', channel._id, await read((credentials) => reads.account(credentials)));
    const since = new Date(deps.now().getTime() - settings.postDays * 86_400_000);
    const posts = await deps.db.posts
      .find({
        channelId: channel._id, rootPostId: null, state: 'PUBLISHED', deletedAt: null, publishedAt: { $gte: since },
        releaseId: { $nin: [null, missingReleaseId] },
      })
      .sort({ publishedAt: -1 })
      .limit(settings.postsPerRun)
      .select({ _id: 1, releaseId: 1 })
      .lean();
    for (const post of posts) {
      const releaseId = post.releaseId ?? '';
      await store('post', post._id, await read((credentials) => reads.post(credentials, releaseId)));
    }
    return { kind: 'gathered', posts: posts.length };
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'disconnected') {
      return { kind: 'skipped', reason: `${channel.provider} refused the channel: ${error.message}` };
    }
    throw error;
  }
}
