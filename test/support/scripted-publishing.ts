import { Redis } from 'ioredis';
import { RedisChannelRefreshLock } from '../../shared/queue/redis-channel-refresh-lock.ts';
import { Types } from 'mongoose';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import type {
  CommentInput,
  PlatformAdapter,
  PublishInput,
  PublishResult,
} from '../../shared/platforms/kit/platform-adapter.ts';
import { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { ChannelTokens } from '../../shared/domain/channels/channel-tokens.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { PlatformCallSlots, type CallSlotSizes } from '../../shared/domain/publishing/platform-call-slots.ts';
import type { PublishRunDeps } from '../../shared/domain/publishing/publish-deps.ts';
import { WebhookOutbox } from '../../shared/domain/webhooks/webhook-outbox.ts';
import { RecentReads } from '../../shared/cache/recent-reads.ts';
import { createTestContext, type TestContext } from './test-context.ts';

export type Step = (input: PublishInput) => Promise<PublishResult>;

/**
 * A platform scripted by each test, in the place of Mastodon's adapter, behind the adapter
 * interface: the engine's part of the publishing contracts is what is tested with it; each real
 * adapter's part is tested against its platform.
 */
export class ScriptedPlatform implements PlatformAdapter {
  readonly provider = 'mastodon';
  readonly tools = {};
  readonly calls: { content: string; checkpoint: Record<string, string> }[] = [];
  steps: Step[] = [];

  #next(input: PublishInput): Promise<PublishResult> {
    this.calls.push({ content: input.content, checkpoint: { ...input.checkpoint.values } });
    const step = this.steps.shift();
    if (step === undefined)
      return Promise.resolve({ releaseId: `id-${input.content}`, releaseURL: `https://p/${input.content}` });
    return step(input);
  }

  publish(input: PublishInput): Promise<PublishResult> {
    return this.#next(input);
  }

  comment(input: CommentInput): Promise<PublishResult> {
    return this.#next(input);
  }

  recentContent(): Promise<{ id: string; url: string }[]> {
    return Promise.resolve([]);
  }
}

/** The publish engine on a test database and Redis, its one channel on the scripted platform. */
export interface ScriptedPublishing {
  ctx: TestContext;
  deps: PublishRunDeps;
  platform: ScriptedPlatform;
  organizationId: string;
  channelId: Types.ObjectId;
  /**
   * A due thread of `texts` on the scripted channel (or `on`); answers the root's id. Stored
   * without a reply count (as before roots counted them) unless `replyCount` is given.
   */
  thread: (texts: string[], replyCount?: number, on?: Types.ObjectId) => Promise<string>;
  /** Another channel of the organization on the scripted platform, of its own account unless named. */
  channel: (accountId?: string) => Promise<Types.ObjectId>;
  close: () => Promise<void>;
}

/** `callSlots`: the process's slots; a number sizes both pools and lets the platform use them all. */
export async function startScriptedPublishing(callSlots: number | CallSlotSizes = 5): Promise<ScriptedPublishing> {
  const ctx = await createTestContext();
  const redis = new Redis(ctx.config.REDIS_URL);
  const platform = new ScriptedPlatform();
  const platforms = new PlatformApps({}, { timeoutMs: 1_000, userHosts: connectionPolicyFor(true) });
  const webhooks = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
  const deps: PublishRunDeps = {
    db: ctx.db,
    adapters: new Map([['mastodon', platform]]),
    tokens: new ChannelTokens({
      db: ctx.db,
      secrets: ctx.secrets,
      refreshLock: new RedisChannelRefreshLock(redis, ctx.config.QUEUE_PREFIX),
      refresherFor: (provider) => platforms.refresherFor(provider),
      refreshAheadMs: 60_000,
      refreshTimeoutMs: 1_000,
      now: () => new Date(),
      webhooks,
    }),
    storage: await createStorage(ctx.config),
    now: () => new Date(),
    webhooks,
    callSlots: new PlatformCallSlots(typeof callSlots === 'number'
      ? { calls: callSlots, uploads: callSlots, platforms: { calls: { mastodon: callSlots } } }
      : callSlots),
    // Every publish reads its channel: tests change channels between publishes.
    recentChannels: new RecentReads(0),
  };
  const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Scripted' });
  const channel = async (accountId?: string): Promise<Types.ObjectId> => {
    const created = await ctx.db.channels.create({
      organizationId,
      provider: 'mastodon',
      name: 'Scripted',
      instanceUrl: 'https://m.example',
      tokenSealed: ctx.secrets.seal('t'),
      ...(accountId === undefined ? {} : { accountId }),
    });
    return created._id;
  };
  const channelId = await channel();
  const thread = async (texts: string[], replyCount?: number, on = channelId): Promise<string> => {
    const rootId = new Types.ObjectId();
    const common = {
      organizationId,
      channelId: on,
      group: rootId.toString(),
      publishDate: new Date(Date.now() - 1_000),
      state: 'QUEUE',
      settings: {},
    };
    await ctx.db.posts.insertMany(
      texts.map((content, position) => ({
        ...common,
        _id: position === 0 ? rootId : new Types.ObjectId(),
        rootPostId: position === 0 ? null : rootId,
        position,
        content,
        ...(position === 0 && replyCount !== undefined ? { replyCount } : {}),
      })),
    );
    return rootId.toString();
  };
  const close = async (): Promise<void> => {
    await redis.quit();
    await ctx.cleanup();
  };
  return { ctx, deps, platform, organizationId, channelId, thread, channel, close };
}
