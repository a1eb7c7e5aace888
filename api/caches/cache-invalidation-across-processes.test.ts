import { Redis } from 'ioredis';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidationPublisher } from '../../shared/cache/invalidation-bus.ts';
import { signUp, rotateApiKey } from '../../shared/domain/accounts/accounts.ts';
import { createApiKey, revokeApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { deleteChannel } from '../../shared/domain/channels/channels.ts';
import { approve, exchangeCode } from '../../shared/domain/oauth/authorization.ts';
import { revokeApp } from '../../shared/domain/oauth/grants.ts';
import { deleteEndpoint, registerEndpoint } from '../../shared/domain/webhooks/webhook-endpoints.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { deleteApp, registerApp } from '../../shared/domain/oauth/oauth-apps.ts';
import { MastodonSimulator } from '../../test/simulators/mastodon/mastodon-simulator.ts';
import { organizationWithMastodon } from '../../test/support/fixtures.ts';
import { freePort } from '../../test/support/free-port.ts';
import { startService, type ServiceProcess } from '../../test/support/processes.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * Two api processes cache credential to organization and the channels of POST /posts. A change
 * made elsewhere (here: this process, as a third api instance would) must be seen by both within
 * a second, though each has the old answer cached for a minute (API_CACHE_TTL_MS).
 */
describe('cache invalidation across two api processes', () => {
  const simulator = new MastodonSimulator();
  let ctx: TestContext;
  let redis: Redis;
  let caches: InvalidationPublisher;
  const apis: { url: string; process: ServiceProcess }[] = [];

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({ API_CACHE_TTL_MS: '60000' });
    redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: 1 });
    caches = new InvalidationPublisher(redis, ctx.config.QUEUE_PREFIX);
    for (let index = 0; index < 2; index += 1) {
      const port = await freePort();
      const process = startService('api/main.ts', { ...ctx.env, PORT: String(port), LOG_LEVEL: 'info' });
      apis.push({ url: `http://127.0.0.1:${port}/api/public/v1`, process });
    }
    await Promise.all(apis.map((api) => api.process.waitForOutput(/api listening/)));
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.process.stop()));
    redis.disconnect();
    await ctx.cleanup();
    await simulator.stop();
  });

  const statusOf = async (
    url: string,
    credential: string,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<number> => {
    const response = await fetch(url, { ...init, headers: { Authorization: credential, ...init.headers } });
    await response.arrayBuffer();
    return response.status;
  };

  /** POST /posts of a draft on the organization's channel, sent to the api at `url`: its status. */
  const draftOf = (org: { apiKey: string; channelId: string }) => (url: string) =>
    statusOf(`${url}/posts`, org.apiKey, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        type: 'draft', date: new Date().toISOString(), tags: [],
        posts: [{ integration: { id: org.channelId }, value: [{ content: 'kept as a draft' }], settings: {} }],
      }),
    });

  /** Both processes answer `path` with 200 twice: the second answer comes from each one's cache. */
  async function warm(credential: string): Promise<void> {
    for (const api of apis) {
      for (let round = 0; round < 2; round += 1) {
        expect(await statusOf(`${api.url}/is-connected`, credential)).toBe(200);
      }
    }
  }

  /** Milliseconds until every process answers `expected` for the request, polling every 20 ms. */
  async function msUntilEvery(expected: number, request: (apiUrl: string) => Promise<number>): Promise<number> {
    const started = performance.now();
    const pending = new Set(apis.map((api) => api.url));
    while (pending.size > 0 && performance.now() - started < 3_000) {
      for (const url of [...pending]) if ((await request(url)) === expected) pending.delete(url);
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect([...pending]).toEqual([]);
    return performance.now() - started;
  }

  async function oauthToken(organizationName: string) {
    const email = `${organizationName.toLowerCase()}@example.com`;
    const { user, organizationId } = await signUp(ctx.db, ctx.secrets, {
      email, password: 'a long enough password', organizationName,
    });
    const { app, clientSecret } = await registerApp(ctx.db, ctx.secrets, organizationId, {
      name: `${organizationName} app`, redirectUrl: 'https://app.example.com/cb',
    });
    const tokenFor = async (): Promise<string> => {
      const code = await approve(ctx.db, ctx.secrets, { app, user, organizationId, now: new Date() });
      const request = { grant_type: 'authorization_code', code, client_id: app.clientId, client_secret: clientSecret };
      return (await exchangeCode(ctx.db, ctx.secrets, caches, request, new Date())).access_token;
    };
    return { user, organizationId, app, tokenFor };
  }

  it('a rotated API key stops working on both processes within a second; the new one works', async () => {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('rotate'));
    await warm(org.apiKey);
    const newKey = await rotateApiKey(ctx.db, ctx.secrets, caches, org.organizationId);
    expect(await msUntilEvery(401, (url) => statusOf(`${url}/is-connected`, org.apiKey))).toBeLessThan(1_000);
    for (const api of apis) expect(await statusOf(`${api.url}/is-connected`, newKey)).toBe(200);
  });

  it('a revoked named key stops working on both processes within a second; the original key works', async () => {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('named'));
    const { key, secret } = await createApiKey(ctx.db, ctx.secrets, org.organizationId, {
      name: 'revoked soon', scopes: ['read'], expiresAt: null,
    }, new Date());
    await warm(secret);
    await revokeApiKey(ctx.db, caches, org.organizationId, key.id, new Date());
    expect(await msUntilEvery(401, (url) => statusOf(`${url}/is-connected`, secret))).toBeLessThan(1_000);
    for (const api of apis) expect(await statusOf(`${api.url}/is-connected`, org.apiKey)).toBe(200);
  });

  it('a user\'s revoke ends the app\'s access token on both processes within a second', async () => {
    const holder = await oauthToken('Revoker');
    const token = await holder.tokenFor();
    await warm(token);
    await revokeApp(ctx.db, caches, holder.user._id, holder.app._id.toString(), new Date());
    expect(await msUntilEvery(401, (url) => statusOf(`${url}/is-connected`, token))).toBeLessThan(1_000);
  });

  it('deleting the app ends its tokens on both processes within a second', async () => {
    const holder = await oauthToken('Deleter');
    const tokens = [await holder.tokenFor(), await holder.tokenFor()];
    for (const token of tokens) await warm(token);
    await deleteApp(ctx.db, caches, holder.organizationId, holder.app._id.toString(), new Date());
    for (const token of tokens) {
      expect(await msUntilEvery(401, (url) => statusOf(`${url}/is-connected`, token))).toBeLessThan(1_000);
    }
  });

  it('a deleted channel is refused by POST /posts on both processes within a second', async () => {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('deleted'));
    const draft = draftOf(org);
    for (const api of apis) for (let round = 0; round < 2; round += 1) expect(await draft(api.url)).toBe(201);
    const scheduler = { schedule: () => Promise.resolve(), cancel: () => Promise.resolve('absent' as const) };
    await deleteChannel({ db: ctx.db, scheduler, caches, now: () => new Date() }, org.organizationId, org.channelId);
    expect(await msUntilEvery(404, draft)).toBeLessThan(1_000);
  });

  it('an endpoint registered elsewhere hears post.created from both processes within a second', async () => {
    const org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('hooked'));
    const draft = draftOf(org);
    const told = (endpointId: string) => ctx.db.webhookDeliveries
      .countDocuments({ endpointId: new Types.ObjectId(endpointId), event: 'post.created' });
    /** 1 when a draft made on `url` wrote a delivery for the endpoint, else 0. */
    const heardBy = (endpointId: string) => async (url: string): Promise<number> => {
      const before = await told(endpointId);
      expect(await draft(url)).toBe(201);
      return (await told(endpointId)) > before ? 1 : 0;
    };
    // Each process has read the organization's endpoints (none) and keeps them for a minute.
    for (const api of apis) for (let round = 0; round < 2; round += 1) expect(await draft(api.url)).toBe(201);
    const deps = { db: ctx.db, secrets: ctx.secrets, userHosts: connectionPolicyFor(true), caches };
    const { endpoint } = await registerEndpoint(deps, org.organizationId, {
      url: 'https://hooks.example.com/sps', events: ['post.created'],
    });
    expect(await msUntilEvery(1, heardBy(endpoint.id))).toBeLessThan(1_000);

    await deleteEndpoint(deps, org.organizationId, endpoint.id);
    expect(await msUntilEvery(0, heardBy(endpoint.id))).toBeLessThan(1_000);
  });
});
