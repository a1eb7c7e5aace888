import { Types } from 'mongoose';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { CacheInvalidation } from '../../cache/invalidation-bus.ts';
import type { Database } from '../../db/database.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, notFound } from '../../errors.ts';
import { findOrCreateCustomer } from '../customers/customers.ts';
import type { VerifiedAccount } from '../../platforms/kit/platform-connect.ts';
import { sameAccount, sameServer } from './account-identity.ts';

/** What a connect flow learned from the platform: the account, its tokens, where it lives. */
export interface ConnectedAccount extends VerifiedAccount {
  provider: string;
}

export interface SaveChannelOptions {
  organizationId: string;
  /** Reconnect this channel in place (`?refresh=<channelId>`): it must be the same platform account. */
  refreshChannelId?: string | null;
  /** Name of the organization's customer a new channel belongs to; created when new. */
  customer?: string | null;
}

/**
 * Saves a connected account as a channel of the organization. The same platform account connected
 * again updates its channel in place (same id, posts and settings) instead of adding a twin; a
 * reconnect of a named channel must bring back that channel's account. On a server the user names,
 * "the same account" is the same id on the same server (account-identity.ts): the same id from
 * another server is another channel, never a takeover. Tokens are sealed here, before they reach
 * the database.
 */
export async function saveConnectedChannel(
  { db, secrets, caches }: { db: Database; secrets: SecretBox; caches: CacheInvalidation },
  account: ConnectedAccount,
  options: SaveChannelOptions,
): Promise<{ id: string; created: boolean }> {
  const organizationId = new Types.ObjectId(options.organizationId);
  const existing = await findReconnected(db, organizationId, account, options.refreshChannelId ?? null);
  const tokens = {
    tokenSealed: secrets.seal(account.accessToken),
    refreshTokenSealed: account.refreshToken === null ? null : secrets.seal(account.refreshToken),
    tokenExpiresAt: account.expiresAt,
    refreshable: account.refreshToken !== null,
    refreshNeeded: false,
  };
  const profile = {
    name: account.name,
    profile: account.username,
    picture: account.picture,
    instanceUrl: account.instanceUrl,
    textLimit: account.textLimit ?? null,
  };
  if (existing !== null) {
    await db.channels.updateOne({ _id: existing }, { $set: { ...tokens, ...profile, accountId: account.accountId } });
    // Its name and text limit may have changed: api processes that cached the channel read it again.
    await caches.changed([`channel:${existing.toString()}`]);
    return { id: existing.toString(), created: false };
  }
  const customer =
    options.customer === undefined || options.customer === null
      ? null
      : await findOrCreateCustomer(db, options.organizationId, options.customer);
  const channel = await db.channels.create({
    organizationId,
    customerId: customer?._id ?? null,
    provider: account.provider,
    accountId: account.accountId,
    ...profile,
    ...tokens,
  });
  return { id: channel._id.toString(), created: true };
}

async function findReconnected(
  db: Database,
  organizationId: Types.ObjectId,
  account: ConnectedAccount,
  refreshChannelId: string | null,
): Promise<Types.ObjectId | null> {
  if (refreshChannelId !== null) {
    const id = asObjectId(refreshChannelId);
    const channel =
      id === null ? null : await db.channels.findOne({ _id: id, organizationId, deletedAt: null }).lean();
    if (channel === null || channel.provider !== account.provider)
      throw notFound(`channel ${JSON.stringify(refreshChannelId)}`);
    const stored = { accountId: channel.accountId ?? null, instanceUrl: channel.instanceUrl ?? null };
    // A channel never moves to another server, not even one stored without its account id, for
    // which the server it names is all that says whose it is.
    if (!sameServer(stored, account)) {
      const server = (instanceUrl: string | null) => instanceUrl ?? `${account.provider}'s own servers`;
      throw new DomainError(
        'account_mismatch',
        `this channel's account lives on ${server(stored.instanceUrl)}, not on ${server(account.instanceUrl)}; `
          + 'reconnect it from its own server',
      );
    }
    // A channel connected before accounts were recorded takes the account it is reconnected with.
    if (stored.accountId !== null && !sameAccount(stored, account)) {
      throw new DomainError(
        'account_mismatch',
        `this channel belongs to another ${account.provider} account; sign in as that account to reconnect it`,
      );
    }
    return channel._id;
  }
  // The index narrows to the account id; the server, spelt as stored, is compared here.
  const sameId = await db.channels
    .find(
      { organizationId, provider: account.provider, accountId: account.accountId, deletedAt: null },
      { _id: 1, accountId: 1, instanceUrl: 1 },
    )
    .lean();
  const same = sameId.find((channel) =>
    sameAccount({ accountId: channel.accountId ?? null, instanceUrl: channel.instanceUrl ?? null }, account),
  );
  return same?._id ?? null;
}
