import { Redis } from 'ioredis';
import { RedisChannelRefreshLock } from '../../queue/redis-channel-refresh-lock.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { startXSimulator, type XSimulator } from '../../../test/simulators/x/x-simulator.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { platformRequest } from '../../platforms/kit/platform-http.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformApps } from '../../platforms/platform-apps.ts';
import { xConnect } from '../../platforms/x/connect.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { registerEndpoint } from '../webhooks/webhook-endpoints.ts';
import { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import { ChannelTokens, type StoredChannel } from './channel-tokens.ts';
import { listChannels } from './channels.ts';
import { refreshExpiringTokens } from './refresh-expiring-tokens.ts';
import { saveConnectedChannel } from './save-connected-channel.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { noCache } from '../../cache/invalidation-bus.ts';

const minute = 60_000;
const aheadMs = 15 * minute;

/**
 * The token lifecycle against a platform that expires access tokens after two hours and rotates
 * refresh tokens (X's rules, in its simulator): one clock drives SPS and the platform.
 */
describe('channel tokens: refreshed before expiry, once per channel, kept when the platform is away', () => {
  let ctx: TestContext;
  let sim: XSimulator;
  let redis: Redis;
  // Platform answers carry lifetimes (expires_in) that SPS turns into dates with the real clock.
  let clock = Date.now();
  const now = () => new Date(clock);
  let envFor: (tokenUrl?: string) => NodeJS.ProcessEnv;

  function tokensWith(env: NodeJS.ProcessEnv): ChannelTokens {
    const platforms = new PlatformApps(env, { timeoutMs: 3_000, userHosts: connectionPolicyFor(true) });
    return new ChannelTokens({
      db: ctx.db,
      secrets: ctx.secrets,
      refreshLock: new RedisChannelRefreshLock(redis, ctx.config.QUEUE_PREFIX),
      refresherFor: (provider) => platforms.refresherFor(provider),
      refreshAheadMs: aheadMs,
      refreshTimeoutMs: 3_000,
      now,
      webhooks: new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now }),
    });
  }

  beforeAll(async () => {
    ctx = await createTestContext();
    redis = new Redis(ctx.config.REDIS_URL);
    sim = await startXSimulator();
    sim.authority.now = () => clock;
    envFor = (tokenUrl = sim.url) => ({
      X_CLIENT_ID: sim.clientId,
      X_CLIENT_SECRET: sim.clientSecret,
      X_API_URL: sim.url,
      X_AUTH_URL: sim.url,
      X_TOKEN_URL: tokenUrl,
    });
  });
  afterAll(async () => {
    await sim.close();
    redis.disconnect();
    await ctx.cleanup();
  });

  let users = 0;
  /** A new X user connected as a channel of a new organization, the way the callback saves it. */
  async function connectedChannel(): Promise<StoredChannel> {
    users += 1;
    const id = String(1000 + users);
    sim.addUser({ id, name: `User ${id}`, username: `user${id}`, profile_image_url: 'https://pbs.twimg.com/p.jpg' });
    sim.authority.consentingUser = id;
    const context = testConnectContext({
      clientId: sim.clientId,
      clientSecret: sim.clientSecret,
      apiUrl: sim.url,
      userHosts: connectionPolicyFor(true),
    });
    const { authorized } = await authorizeAndConnect(xConnect, context);
    const account = authorized.accounts[0];
    if (account === undefined) throw new Error('X gave no account');
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: `Org ${id}` });
    const deps = { ...ctx, caches: noCache };
    const saved = await saveConnectedChannel(deps, { ...account, provider: 'x' }, { organizationId });
    return reload(saved.id);
  }

  async function reload(id: string | { toString(): string }): Promise<StoredChannel> {
    const channel = await ctx.db.channels.findById(id.toString()).lean();
    if (channel === null) throw new Error('channel gone');
    return channel;
  }

  /** What a publish does with the credentials: one authenticated call to X. */
  const readProfile = (credentials: { accessToken: string }) =>
    platformRequest({
      provider: 'x',
      method: 'GET',
      url: `${sim.url}/2/users/me`,
      timeoutMs: 3_000,
      headers: { Authorization: `Bearer ${credentials.accessToken}` },
      // X answers an expired token 401: the kind the token lifecycle refreshes on.
      classify: (status) => (status === 401 ? 'refresh_token' : undefined),
    });

  it('stores the access token, the refresh token and the expiry sealed at connect time', async () => {
    const channel = await connectedChannel();
    expect(channel.refreshable).toBe(true);
    expect(Math.abs((channel.tokenExpiresAt?.getTime() ?? 0) - (clock + 2 * 60 * minute))).toBeLessThan(minute);
    expect(ctx.secrets.open(channel.refreshTokenSealed ?? '')).toMatch(/^rt-/);
    expect(JSON.stringify(channel)).not.toMatch(/"(at|rt)-[0-9a-f]{32}"/);
  });

  it('the sweep leaves a fresh token alone and renews it once the clock nears its expiry', async () => {
    const channel = await connectedChannel();
    const tokens = tokensWith(envFor());
    const sweep = () => refreshExpiringTokens({ db: ctx.db, tokens, now }, { aheadMs, batchSize: 50 });
    const before = sim.authority.grants.refresh_token;
    expect((await sweep()).refreshed).not.toContain(channel._id.toString());

    clock += 110 * minute;
    const swept = await sweep();
    expect(swept.refreshed).toContain(channel._id.toString());
    expect(sim.authority.grants.refresh_token).toBeGreaterThan(before);
    const renewed = await reload(channel._id);
    expect(renewed.tokenExpiresAt?.getTime()).toBe(clock + 2 * 60 * minute);
    expect(renewed.refreshTokenSealed).not.toBe(channel.refreshTokenSealed);
    // Channel health reports when the token was last renewed: never at connect, now after the sweep.
    expect(channel.tokenRefreshedAt).toBeNull();
    expect(renewed.tokenRefreshedAt?.getTime()).toBe(clock);
    clock += 30 * minute;
    // Past the old token's lifetime, the renewed one still works at X.
    await expect(readProfile(tokens.credentialsOf(renewed))).resolves.toMatchObject({
      data: { id: renewed.accountId },
    });
    await expect(readProfile(tokens.credentialsOf(channel))).rejects.toMatchObject({ kind: 'refresh_token' });
  });

  it('two publishes in two processes on an expired channel refresh once and both go through', async () => {
    const channel = await connectedChannel();
    clock += 3 * 60 * minute;
    const before = sim.authority.grants.refresh_token;
    const [first, second] = [tokensWith(envFor()), tokensWith(envFor())];
    const answers = await Promise.all([
      first.run(channel, readProfile),
      second.run(channel, readProfile),
      first.run(channel, readProfile),
    ]);
    expect(answers.map((answer) => (answer as { data: { id: string } }).data.id)).toEqual(
      Array(3).fill(channel.accountId),
    );
    expect(sim.authority.grants.refresh_token - before).toBe(1);
    // One renewal, told once (channel.refreshed, in the events feed), however many callers waited on it.
    const told = await ctx.db.events.find({ organizationId: channel.organizationId, type: 'channel.refreshed' }).lean();
    const renewed = await reload(channel._id);
    expect(told.map((event) => JSON.parse(event.body) as { data: unknown })
      .filter((event) => JSON.stringify(event.data).includes(channel._id.toString())))
      .toEqual([expect.objectContaining({ data: {
        channelId: channel._id.toString(), provider: channel.provider, name: channel.name,
        refreshedAt: renewed.tokenRefreshedAt?.toISOString(), expiresAt: renewed.tokenExpiresAt?.toISOString() ?? null,
      } })]);
  });

  it('a call that meets an expired-token answer refreshes once and runs again', async () => {
    const channel = await connectedChannel();
    // SPS believes the token is good for a day; X expired it after two hours.
    await ctx.db.channels.updateOne(
      { _id: channel._id },
      { $set: { tokenExpiresAt: new Date(clock + 24 * 60 * minute) } },
    );
    clock += 3 * 60 * minute;
    const before = sim.authority.grants.refresh_token;
    const tokens = tokensWith(envFor());
    await expect(tokens.run(await reload(channel._id), readProfile)).resolves.toMatchObject({
      data: { id: channel.accountId },
    });
    expect(sim.authority.grants.refresh_token - before).toBe(1);
  });

  it('keeps every token when the platform cannot be reached, and renews later', async () => {
    const channel = await connectedChannel();
    clock += 3 * 60 * minute;
    const away = tokensWith(envFor(await closedOrigin()));
    const failure: unknown = await away.run(channel, readProfile).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PlatformError);
    expect((failure as PlatformError).kind).toBe('retryable');
    const kept = await reload(channel._id);
    expect([kept.refreshTokenSealed, kept.tokenSealed, kept.refreshNeeded]).toEqual([
      channel.refreshTokenSealed,
      channel.tokenSealed,
      false,
    ]);

    await expect(tokensWith(envFor()).run(kept, readProfile)).resolves.toMatchObject({
      data: { id: channel.accountId },
    });
  });

  it('marks the channel to reconnect, once, with one notice and one event, when X refuses the refresh', async () => {
    const channel = await connectedChannel();
    const endpointDeps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches: noCache };
    await registerEndpoint(endpointDeps, channel.organizationId.toString(), {
      url: 'https://receiver.example/sps', events: ['channel.disconnected'],
    });
    sim.authority.revokeAll();
    clock += 3 * 60 * minute;
    const tokens = tokensWith(envFor());
    const outcomes = await Promise.allSettled([
      tokens.run(channel, readProfile),
      tokensWith(envFor()).run(channel, readProfile),
    ]);
    for (const outcome of outcomes)
      expect(outcome).toMatchObject({ status: 'rejected', reason: { kind: 'disconnected' } });
    const flagged = await reload(channel._id);
    expect([flagged.refreshNeeded, flagged.refreshable]).toEqual([true, false]);
    expect(ctx.secrets.open(flagged.refreshTokenSealed ?? '')).toBe(
      ctx.secrets.open(channel.refreshTokenSealed ?? ''),
    );
    const notices = await ctx.db.notifications.find({ organizationId: channel.organizationId }).lean();
    expect(notices.map((notice) => notice.content)).toEqual([expect.stringContaining('must be reconnected')]);
    const deliveries = await ctx.db.webhookDeliveries.find({ organizationId: channel.organizationId }).lean();
    const told = deliveries.map((delivery) => [delivery.event, delivery.status]);
    expect(told).toEqual([['channel.disconnected', 'pending']]);
    expect(JSON.parse(deliveries[0]?.body ?? '{}')).toMatchObject({
      type: 'channel.disconnected',
      organizationId: channel.organizationId.toString(),
      data: { channelId: channel._id.toString(), provider: 'x', name: channel.name },
    });
    const listed = await listChannels(ctx.db, channel.organizationId.toString());
    expect(listed[0]?.refreshNeeded).toBe(true);
    // The sweep no longer picks it up.
    const swept = await refreshExpiringTokens({ db: ctx.db, tokens, now }, { aheadMs, batchSize: 50 });
    expect(swept.refreshed.concat(swept.errors.map((error) => error.channelId))).not.toContain(
      channel._id.toString(),
    );
  });
});
