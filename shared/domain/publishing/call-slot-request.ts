import type { StoredChannel } from '../channels/channel-tokens.ts';
import type { CallSlotRequest } from './platform-call-slots.ts';
import type { PreparedThread } from './prepare-thread.ts';

/**
 * Who a channel calls its platform as. Channels of one platform account (the same account
 * connected by two organizations, or connected again) share it, so their publishes wait for one
 * another as the platform counts them; a channel whose account id is unknown stands alone.
 */
export function callingAccount(channel: StoredChannel): string {
  const accountId = channel.accountId ?? null;
  if (accountId === null) return `channel ${channel._id.toHexString()}`;
  return JSON.stringify([channel.provider, channel.instanceUrl ?? null, accountId]);
}

/**
 * The slot a prepared thread publishes in: the uploads pool when a part still to send carries a
 * video (an upload or a platform's processing of it takes minutes), the calls pool otherwise.
 */
export function callSlotRequestFor(prepared: PreparedThread): CallSlotRequest {
  const sendsVideo = prepared.unpublished.some((part) =>
    part.media.some((reference) => prepared.mediaOf(reference).kind === 'video'));
  return {
    account: callingAccount(prepared.channel),
    platform: prepared.channel.provider,
    pool: sendsVideo ? 'uploads' : 'calls',
  };
}

/** Whether two requests take the same slot: a thread read again may now need another. */
export function sameCallSlot(one: CallSlotRequest, other: CallSlotRequest): boolean {
  return one.account === other.account && one.platform === other.platform && one.pool === other.pool;
}
