import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { startVkSimulator, type RunningVkSimulator } from '../../../test/simulators/vk/vk-simulator.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { DomainError } from '../../errors.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformApps } from '../../platforms/platform-apps.ts';
import { readVkRefreshCredential } from '../../platforms/vk/credential.ts';
import { createOrganization } from '../organizations/organizations.ts';
import { finishAuthorization, startConnect, type ConnectDeps } from './connect-channel.ts';
import { noCache } from '../../cache/invalidation-bus.ts';

const frontendUrl = 'https://sps.example';

/** VK ID adds `device_id` to its redirect; the code exchange must send it on. */
describe('a platform\'s callback values reaching the code exchange (VK ID\'s device_id)', () => {
  let vk: RunningVkSimulator;
  let ctx: TestContext;
  let deps: ConnectDeps;

  beforeAll(async () => {
    vk = await startVkSimulator({
      'user-1': {
        id: 210700286, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada',
        photo200: 'https://sun9-1.userapi.com/ada.jpg',
      },
    });
    ctx = await createTestContext();
    const env = {
      VK_CLIENT_ID: vk.clientId, VK_CLIENT_SECRET: vk.clientSecret,
      VK_API_URL: vk.url, VK_AUTH_URL: vk.url, VK_TOKEN_URL: vk.url,
    };
    const platforms = new PlatformApps(env, { timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
    deps = { db: ctx.db, secrets: ctx.secrets, caches: noCache, now: () => new Date(), platforms, frontendUrl };
  });
  afterAll(async () => {
    await ctx.cleanup();
    await vk.close();
  });

  /** Starts a connection of a new organization and lets the simulated user approve it. */
  async function authorize() {
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(Math.random())}` });
    const { url } = await startConnect(deps, {
      organizationId, provider: 'vk', refreshChannelId: null, serverUrl: null, customer: null,
    });
    const consent = await fetch(url, { redirect: 'manual' });
    return { organizationId, query: new URL(consent.headers.get('location') ?? '').searchParams };
  }

  const callback = (query: URLSearchParams, parameters: Record<string, string>) =>
    finishAuthorization(deps, {
      provider: 'vk',
      state: query.get('state') ?? '',
      code: query.get('code'),
      error: null,
      errorDescription: null,
      parameters,
      organizationId: null,
    });

  const exchanges = () => vk.received.filter((request) => request.path === '/oauth2/auth').map(formBody);

  it('sends the redirect\'s device_id, and only it, to the exchange and keeps it for refreshes', async () => {
    const { query } = await authorize();
    const outcome = await callback(query, Object.fromEntries(query));
    if (outcome.kind !== 'saved') throw new Error('expected a saved channel');

    const deviceId = query.get('device_id');
    const sent = exchanges().at(-1);
    expect(deviceId).toMatch(/^[\w-]{16}$/);
    expect(sent?.get('device_id')).toBe(deviceId);
    expect(sent?.get('state')).toBe(query.get('state'));
    expect(sent?.has('type')).toBe(false);
    expect(sent?.has('expires_in')).toBe(false);
    const channel = await ctx.db.channels.findById(outcome.id).lean();
    expect(channel).toMatchObject({ provider: 'vk', name: 'Ada Lovelace', refreshable: true });
    const refresh = readVkRefreshCredential(ctx.secrets.open(channel?.refreshTokenSealed ?? ''));
    expect(refresh.deviceId).toBe(deviceId);
  });

  it('refuses a callback without the device_id before any exchange, and saves nothing', async () => {
    const { organizationId, query } = await authorize();
    const before = exchanges().length;
    const { device_id: _deviceId, ...rest } = Object.fromEntries(query);
    const error: unknown = await callback(query, rest).then(() => null, (caught: unknown) => caught);

    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'validation_failed', message: 'VK sent no device_id back' });
    expect(exchanges().length).toBe(before);
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(0);
  });
});
