import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { DomainError } from '../../errors.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformApps } from '../../platforms/platform-apps.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { finishAuthorization, startConnect, type ConnectDeps, type ConnectOutcome } from './connect-channel.ts';
import { noCache } from '../../cache/invalidation-bus.ts';

const frontendUrl = 'https://sps.example';

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const error: unknown = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('connecting a channel through OAuth (Mastodon: a client registered per instance)', () => {
  const simulator = new MastodonSimulator();
  let ctx: TestContext;
  let deps: ConnectDeps;
  let clock = Date.now();

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext();
    const platforms = new PlatformApps({}, { timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
    deps = { db: ctx.db, secrets: ctx.secrets, caches: noCache, now: () => new Date(clock), platforms, frontendUrl };
  });
  afterAll(async () => {
    await ctx.cleanup();
    await simulator.stop();
  });

  const newOrganization = async () =>
    (await createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(Math.random())}` })).organizationId;

  /** Starts a connection and lets the simulated user approve it; returns the callback's query. */
  async function authorize(organizationId: string, options: { refresh?: string; user?: string } = {}) {
    simulator.apps.consentingUser = options.user ?? 'alice';
    const { url } = await startConnect(deps, {
      organizationId,
      provider: 'mastodon',
      refreshChannelId: options.refresh ?? null,
      serverUrl: simulator.origin,
      customer: null,
    });
    const consent = await fetch(url, { redirect: 'manual' });
    const location = new URL(consent.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${frontendUrl}/channels/callback/mastodon`);
    return { url: new URL(url), query: location.searchParams };
  }

  const callback = (query: URLSearchParams, organizationId: string | null = null) =>
    finishAuthorization(deps, {
      provider: 'mastodon',
      state: query.get('state') ?? '',
      code: query.get('code'),
      error: query.get('error'),
      errorDescription: query.get('error_description'),
      organizationId,
    });

  const savedId = (outcome: ConnectOutcome): string => {
    if (outcome.kind !== 'saved') throw new Error('expected a saved channel');
    return outcome.id;
  };

  it('registers SPS once per instance, sends the user there with PKCE, saves the profile read back', async () => {
    const organizationId = await newOrganization();
    const before = simulator.apps.registrations;
    const { url, query } = await authorize(organizationId);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('scope')).toBe('read:accounts read:statuses write:statuses write:media');
    const id = savedId(await callback(query));
    const channel = await ctx.db.channels.findById(id).lean();
    expect(channel).toMatchObject({
      provider: 'mastodon',
      name: 'alice',
      instanceUrl: simulator.origin,
      refreshable: false,
    });
    expect(channel?.profile).toBe(`@alice@${new URL(simulator.origin).host}`);
    expect(ctx.secrets.open(channel?.tokenSealed ?? '')).toMatch(/^at-/);
    expect(channel?.textLimit).toBe(500);

    await authorize(await newOrganization());
    expect(simulator.apps.registrations).toBe(before + 1);
  });

  it('keeps the instance\'s own text limit, read from /api/v2/instance at connect', async () => {
    simulator.maxCharacters = 5_000;
    try {
      const id = savedId(await callback((await authorize(await newOrganization())).query));
      expect((await ctx.db.channels.findById(id).lean())?.textLimit).toBe(5_000);
    } finally {
      simulator.maxCharacters = 500;
    }
  });

  it('keeps the channel id when the same account connects again, with or without ?refresh', async () => {
    const organizationId = await newOrganization();
    const first = savedId(await callback((await authorize(organizationId, { user: 'bob' })).query));
    const again = savedId(await callback((await authorize(organizationId, { user: 'bob' })).query));
    const refreshed = savedId(
      await callback((await authorize(organizationId, { user: 'bob', refresh: first })).query),
    );
    expect([again, refreshed]).toEqual([first, first]);
    expect(await ctx.db.channels.countDocuments({ organizationId, provider: 'mastodon' })).toBe(1);
  });

  it('refuses a reconnect that brings back another account, and leaves the channel as it was', async () => {
    const organizationId = await newOrganization();
    const id = savedId(await callback((await authorize(organizationId, { user: 'carol' })).query));
    const before = await ctx.db.channels.findById(id).lean();
    const error = await refusal(callback((await authorize(organizationId, { user: 'dave', refresh: id })).query));
    expect(error.code).toBe('account_mismatch');
    expect((await ctx.db.channels.findById(id).lean())?.tokenSealed).toBe(before?.tokenSealed);
  });

  it('takes a state once: a replayed callback is 400 invalid_state and saves nothing', async () => {
    const organizationId = await newOrganization();
    const { query } = await authorize(organizationId, { user: 'erin' });
    await callback(query);
    const error = await refusal(callback(query));
    expect(error.code).toBe('invalid_state');
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(1);
  });

  it('refuses another organization\'s state and an expired one, saving nothing', async () => {
    const organizationId = await newOrganization();
    const stranger = await newOrganization();
    const foreign = await refusal(callback((await authorize(organizationId)).query, stranger));
    expect([foreign.code, foreign.message]).toEqual([
      'invalid_state',
      expect.stringContaining('another organization'),
    ]);

    const { query } = await authorize(organizationId);
    clock += 11 * 60 * 1000;
    try {
      const expired = await refusal(callback(query));
      expect([expired.code, expired.message]).toEqual(['invalid_state', expect.stringContaining('expired')]);
    } finally {
      clock = Date.now();
    }
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(0);
  });

  it('shows the platform\'s own words when it refuses the code or the user declines, and saves nothing', async () => {
    const organizationId = await newOrganization();
    const { query } = await authorize(organizationId);
    query.set('code', 'tampered');
    const refused = await refusal(callback(query));
    expect(refused.code).toBe('connect_refused');
    expect(refused.message).toContain('The authorization code is invalid or expired');

    simulator.apps.consentingUser = 'alice';
    const declined = await refusal(
      callback(
        new URLSearchParams({
          state: (await authorize(organizationId)).query.get('state') ?? '',
          error: 'access_denied',
          error_description: 'The resource owner or authorization server denied the request.',
        }),
      ),
    );
    expect([declined.code, declined.message]).toEqual([
      'connect_refused',
      expect.stringContaining('denied the request'),
    ]);
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(0);
  });

  it('points at the dashboard\'s form while the instance is unknown, and refuses a private one', async () => {
    const organizationId = await newOrganization();
    const start = { organizationId, provider: 'mastodon', refreshChannelId: null, customer: null };
    expect(await startConnect(deps, { ...start, serverUrl: null })).toEqual({
      url: `${frontendUrl}/channels/connect/mastodon`,
    });
    const strict = {
      ...deps,
      platforms: new PlatformApps({}, { timeoutMs: 5_000, userHosts: connectionPolicyFor(false) }),
    };
    const privateServer = await refusal(startConnect(strict, { ...start, serverUrl: 'https://10.0.0.8' }));
    expect(privateServer.code).toBe('connect_refused');
    const plainHttp = await refusal(startConnect(strict, { ...start, serverUrl: 'http://mastodon.example' }));
    expect(plainHttp.message).toContain('https');
    const unknown = await refusal(startConnect(deps, { ...start, provider: 'myspace', serverUrl: null }));
    expect(unknown.code).toBe('not_found');
  });
});
