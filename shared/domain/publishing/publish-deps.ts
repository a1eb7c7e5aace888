import type { RecentReads } from '../../cache/recent-reads.ts';
import type { Database } from '../../db/database.ts';
import type { AdapterSet } from '../../platforms/platforms.ts';
import type { Storage } from '../../storage/storage.ts';
import type { ChannelTokens, StoredChannel } from '../channels/channel-tokens.ts';
import type { PublishScheduler } from '../posts/publish-scheduler.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import type { PlatformCallSlots } from './platform-call-slots.ts';

/** What publishing needs from outside: the stores, the platforms, the clock and the outbox. */
export interface PublishDeps {
  db: Database;
  adapters: AdapterSet;
  /** Opens the channel's token, refreshing it first or after the platform calls it expired. */
  tokens: ChannelTokens;
  /** Where attached media are read from when an adapter uploads them to the platform. */
  storage: Storage;
  now: () => Date;
  /** post.published, post.failed and channel.disconnected are told to the organization's endpoints. */
  webhooks: WebhookEvents;
  /** Queues a recurring post's next occurrence; without it the publication sweep does when it falls due. */
  occurrenceScheduler?: PublishScheduler | undefined;
}

/** What a publish job runs with: what the publishes of one process share, besides the rest. */
export interface PublishRunDeps extends PublishDeps {
  callSlots: PlatformCallSlots;
  /** Channels read by recent publishes, handed to the next ones of the same channel. */
  recentChannels: RecentReads<StoredChannel>;
}
