import type { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Channel } from '../../db/models/channel.ts';
import type { ChannelCredentials } from '../../platforms/kit/platform-adapter.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import type { RefreshedTokens, RefreshTokens } from '../../platforms/kit/token-refresh.ts';
import { notify } from '../notifications/notifications.ts';
import type { ChannelRefreshLock } from './channel-refresh-lock.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';

export interface ChannelTokenDeps {
  db: Database;
  secrets: SecretBox;
  /** One refresh of a channel at a time across processes. */
  refreshLock: ChannelRefreshLock;
  refresherFor(provider: string): RefreshTokens | undefined;
  /** A token that expires within this long is refreshed before it is used. */
  refreshAheadMs: number;
  /** Longest a platform's refresh call may take (its HTTP timeout); the lock outlives it. */
  refreshTimeoutMs: number;
  now: () => Date;
  /** Where channel.disconnected (the platform refuses a refresh) and channel.refreshed are told. */
  webhooks: WebhookEvents;
}

export type StoredChannel = Channel & { _id: Types.ObjectId };

/** Which tokens the caller holds as stale: expiring soon, or the one the platform just refused. */
type Staleness = { kind: 'expiring' } | { kind: 'rejected'; accessToken: string };

/**
 * The token lifecycle of every channel. Refreshes of one channel are serialized across all
 * processes (a Redis lock) and within one (a shared promise): the first caller refreshes, every
 * caller waiting behind it reads the stored result instead of spending the refresh token again,
 * which matters on platforms that rotate refresh tokens and refuse the old one.
 */
export class ChannelTokens {
  readonly #deps: ChannelTokenDeps;
  readonly #inFlight = new Map<string, Promise<ChannelCredentials>>();

  constructor(deps: ChannelTokenDeps) {
    this.#deps = deps;
  }

  credentialsOf(channel: StoredChannel): ChannelCredentials {
    return {
      channelId: channel._id.toString(),
      accessToken: this.#deps.secrets.open(channel.tokenSealed),
      instanceUrl: channel.instanceUrl ?? null,
    };
  }

  /** The channel's credentials, refreshed first when its access token is about to expire. */
  async fresh(channel: StoredChannel): Promise<ChannelCredentials> {
    if (!this.#expiresSoon(channel)) return this.credentialsOf(channel);
    return this.#refreshOnce(channel._id, { kind: 'expiring' });
  }

  /**
   * Runs a platform call with fresh credentials. When the platform answers that the access token
   * expired, the token is refreshed once (or the refresh another caller made is used) and the
   * call runs once more; a second expiry answer means the platform refuses the channel.
   */
  async run<T>(channel: StoredChannel, call: (credentials: ChannelCredentials) => Promise<T>): Promise<T> {
    const credentials = await this.fresh(channel);
    try {
      return await call(credentials);
    } catch (error) {
      if (!(error instanceof PlatformError) || error.kind !== 'refresh_token') throw error;
      const refreshed = await this.#refreshOnce(channel._id, {
        kind: 'rejected',
        accessToken: credentials.accessToken,
      });
      try {
        return await call(refreshed);
      } catch (second) {
        if (second instanceof PlatformError && second.kind === 'refresh_token') {
          throw new PlatformError({
            kind: 'disconnected',
            provider: second.provider,
            message: second.message,
            cause: second,
          });
        }
        throw second;
      }
    }
  }

  /** Refreshes a channel whose token expires soon (the sweep); a channel refreshed meanwhile is left alone. */
  async refreshIfExpiring(channelId: Types.ObjectId): Promise<ChannelCredentials> {
    return this.#refreshOnce(channelId, { kind: 'expiring' });
  }

  #expiresSoon(channel: Pick<Channel, 'tokenExpiresAt'>): boolean {
    const expiresAt = channel.tokenExpiresAt ?? null;
    return expiresAt !== null && expiresAt.getTime() <= this.#deps.now().getTime() + this.#deps.refreshAheadMs;
  }

  #refreshOnce(channelId: Types.ObjectId, staleness: Staleness): Promise<ChannelCredentials> {
    const key = channelId.toString();
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const refreshing = this.#refreshUnderLock(channelId, staleness).finally(() => {
      this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, refreshing);
    return refreshing;
  }

  async #refreshUnderLock(channelId: Types.ObjectId, staleness: Staleness): Promise<ChannelCredentials> {
    const holdMs = this.#deps.refreshTimeoutMs * 2 + 5_000;
    const outcome = await this.#deps.refreshLock.exclusive(channelId.toString(), holdMs, () =>
      this.#refresh(channelId, staleness));
    if (outcome.kind === 'ran') return outcome.value;
    throw new PlatformError({
      kind: 'retryable', provider: 'sps', message: 'another refresh of this channel is still running',
    });
  }

  /** Runs under the channel's lock: reads the channel again, since the previous holder may have refreshed it. */
  async #refresh(channelId: Types.ObjectId, staleness: Staleness): Promise<ChannelCredentials> {
    const { db, secrets } = this.#deps;
    const channel = await db.channels.findOne({ _id: channelId, deletedAt: null }).lean();
    if (channel === null)
      throw new PlatformError({ kind: 'disconnected', provider: 'sps', message: 'the channel was removed' });
    const provider = channel.provider;
    if (channel.refreshNeeded) {
      throw new PlatformError({ kind: 'disconnected', provider, message: 'the channel must be reconnected' });
    }
    const current = this.credentialsOf(channel);
    const stillStale =
      staleness.kind === 'expiring' ? this.#expiresSoon(channel) : current.accessToken === staleness.accessToken;
    if (!stillStale) return current;

    const sealedRefresh = channel.refreshTokenSealed ?? null;
    const refresher = this.#deps.refresherFor(provider);
    if (sealedRefresh === null || refresher === undefined) {
      const message = 'the access token expired and the platform gave no way to renew it';
      await this.#markRefreshNeeded(channel, message);
      throw new PlatformError({ kind: 'disconnected', provider, message });
    }
    let tokens: RefreshedTokens;
    try {
      const request = {
        provider,
        refreshToken: secrets.open(sealedRefresh),
        instanceUrl: channel.instanceUrl ?? null,
        now: this.#deps.now(),
      };
      tokens = await refresher(request);
    } catch (error) {
      // Only the platform's refusal ends the channel; a refresh that could not be made keeps
      // every stored token so the next attempt can succeed.
      if (error instanceof PlatformError && error.kind === 'disconnected')
        await this.#markRefreshNeeded(channel, error.message);
      throw error;
    }
    const refreshToken = tokens.refreshToken === null ? sealedRefresh : secrets.seal(tokens.refreshToken);
    const refreshedAt = this.#deps.now();
    await db.channels.updateOne(
      { _id: channel._id },
      {
        $set: {
          tokenSealed: secrets.seal(tokens.accessToken),
          refreshTokenSealed: refreshToken,
          tokenExpiresAt: tokens.expiresAt,
          tokenRefreshedAt: refreshedAt,
        },
      },
    );
    // Once per renewal: callers waiting behind this one read the stored token and tell nothing.
    await this.#deps.webhooks.emit(channel.organizationId.toString(), 'channel.refreshed', {
      channelId: channel._id.toString(),
      provider,
      name: channel.name,
      refreshedAt: refreshedAt.toISOString(),
      expiresAt: tokens.expiresAt?.toISOString() ?? null,
    });
    return { ...current, accessToken: tokens.accessToken };
  }

  /** Flags the channel once and tells the organization once, however many callers saw the refusal. */
  async #markRefreshNeeded(channel: StoredChannel, reason: string): Promise<void> {
    const { db } = this.#deps;
    const flagged = await db.channels.updateOne(
      { _id: channel._id, refreshNeeded: false },
      { $set: { refreshNeeded: true, refreshable: false } },
    );
    if (flagged.modifiedCount !== 1) return;
    await notify(db, channel.organizationId.toString(), {
      content: `Your channel "${channel.name}" must be reconnected: ${reason}`,
      link: null,
    });
    await this.#deps.webhooks.emit(channel.organizationId.toString(), 'channel.disconnected', {
      channelId: channel._id.toString(), provider: channel.provider, name: channel.name, reason,
    });
  }
}
