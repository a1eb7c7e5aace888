import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { noCache } from '../../cache/invalidation-bus.ts';
import { DomainError } from '../../errors.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { saveConnectedChannel, type ConnectedAccount } from './save-connected-channel.ts';

/** What a connect flow read from a server the user named, as the platform's connect returns it. */
function accountOn(provider: string, instanceUrl: string | null, accountId: string, token: string): ConnectedAccount {
  return {
    provider,
    accountId,
    name: `account ${accountId}`,
    username: null,
    picture: null,
    instanceUrl,
    accessToken: token,
    refreshToken: null,
    expiresAt: null,
  };
}

/**
 * An account on a server the user names is its id on that server: the same id read from another
 * server is another channel, and a reconnect never moves a channel to another server, channels
 * stored before this rule (without an account id, or with the server spelt otherwise) included.
 */
describe('saving a connected account: the same account is the same id on the same server', () => {
  let ctx: TestContext;
  let deps: Parameters<typeof saveConnectedChannel>[0];

  beforeAll(async () => {
    ctx = await createTestContext();
    deps = { db: ctx.db, secrets: ctx.secrets, caches: noCache };
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  const newOrganization = async () =>
    (await createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(Math.random())}` })).organizationId;

  /** A channel as older code stored it, for the reconnects below to find (or not). */
  async function storedChannel(
    organizationId: string,
    fields: { provider: string; accountId: string | null; instanceUrl: string | null },
  ): Promise<string> {
    const channel = await ctx.db.channels.create({
      organizationId: new Types.ObjectId(organizationId),
      name: 'stored',
      tokenSealed: ctx.secrets.seal('stored-token'),
      ...fields,
    });
    return channel._id.toString();
  }

  const tokenOf = async (id: string) =>
    ctx.secrets.open((await ctx.db.channels.findById(id).lean())?.tokenSealed ?? '');

  it('gives the same Lemmy account id read from another server a channel of its own', async () => {
    const organizationId = await newOrganization();
    const actor = 'https://lemmy.victim.example/u/alice';
    const first = await saveConnectedChannel(deps, accountOn('lemmy', 'https://lemmy.victim.example', actor, 'a'), {
      organizationId,
    });
    const other = await saveConnectedChannel(deps, accountOn('lemmy', 'https://lemmy.evil.example', actor, 'b'), {
      organizationId,
    });
    expect(other.created).toBe(true);
    expect(other.id).not.toBe(first.id);
    expect(await tokenOf(first.id)).toBe('a');
  });

  it('tells a Bluesky DID on its own PDS from the same DID on Bluesky\'s hosts', async () => {
    const organizationId = await newOrganization();
    const did = 'did:plc:victim';
    const hosted = await saveConnectedChannel(deps, accountOn('bluesky', null, did, 'a'), { organizationId });
    const claimed = await saveConnectedChannel(deps, accountOn('bluesky', 'https://pds.evil.example', did, 'b'), {
      organizationId,
    });
    expect(claimed.id).not.toBe(hosted.id);
    const refresh = saveConnectedChannel(deps, accountOn('bluesky', 'https://pds.evil.example', did, 'c'), {
      organizationId,
      refreshChannelId: hosted.id,
    });
    await expect(refresh).rejects.toMatchObject({ code: 'account_mismatch' });
    expect(await tokenOf(hosted.id)).toBe('a');
  });

  it('keeps a channel stored without its account id on its server when reconnected from another', async () => {
    const organizationId = await newOrganization();
    const id = await storedChannel(organizationId, {
      provider: 'mastodon',
      accountId: null,
      instanceUrl: 'https://mastodon.victim.example',
    });
    const error: unknown = await saveConnectedChannel(
      deps,
      accountOn('mastodon', 'https://mastodon.evil.example', '1', 'evil'),
      { organizationId, refreshChannelId: id },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'account_mismatch' });
    const after = await ctx.db.channels.findById(id).lean();
    expect(after?.instanceUrl).toBe('https://mastodon.victim.example');
    expect(await tokenOf(id)).toBe('stored-token');

    // From its own server it takes the account it is reconnected with, as before.
    const reconnected = await saveConnectedChannel(
      deps,
      accountOn('mastodon', 'https://mastodon.victim.example', '1', 'fresh'),
      { organizationId, refreshChannelId: id },
    );
    expect(reconnected).toEqual({ id, created: false });
    expect((await ctx.db.channels.findById(id).lean())?.accountId).toBe('1');
  });

  it('finds a stored channel by account id and server, however the server was spelt', async () => {
    const organizationId = await newOrganization();
    const elsewhere = await storedChannel(organizationId, {
      provider: 'mastodon',
      accountId: '1',
      instanceUrl: 'https://mastodon.evil.example',
    });
    const own = await storedChannel(organizationId, {
      provider: 'mastodon',
      accountId: '1',
      instanceUrl: 'https://Mastodon.Victim.example:443/',
    });
    const saved = await saveConnectedChannel(
      deps,
      accountOn('mastodon', 'https://mastodon.victim.example', '1', 'fresh'),
      { organizationId },
    );
    expect(saved).toEqual({ id: own, created: false });
    expect(await tokenOf(own)).toBe('fresh');
    expect(await tokenOf(elsewhere)).toBe('stored-token');
  });
});
