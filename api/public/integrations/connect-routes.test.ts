import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { startXSimulator, type XSimulator } from '../../../test/simulators/x/x-simulator.ts';
import { api } from '../../../test/support/fixtures.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { expectError, v1 } from '../../../test/support/channel-test-kit.ts';

const urlAnswer = z.object({ url: z.url() });

/** GET /social/:provider and the callback it leads to, as an API client's user goes through them. */
describe('GET /social/:provider', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let x: XSimulator;
  let frontendUrl = '';

  beforeAll(async () => {
    x = await startXSimulator();
    x.addUser({ id: '42', name: 'Grace', username: 'grace', profile_image_url: 'https://pbs.twimg.com/g.jpg' });
    x.authority.consentingUser = '42';
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      FRONTEND_URL: frontendUrl,
      X_CLIENT_ID: x.clientId,
      X_CLIENT_SECRET: x.clientSecret,
      X_API_URL: x.url,
      X_AUTH_URL: x.url,
      X_TOKEN_URL: x.url,
      // VK ID apps are public clients: the id alone makes VK connectable.
      VK_CLIENT_ID: 'vk-app-1',
    });
    stack = await startStack(ctx, { workers: false, port });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await x.close();
  });

  const organization = () => createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(Math.random())}` });
  const social = (apiKey: string, path: string) => api(stack.baseUrl, apiKey, `${v1}/social/${path}`);

  it('answers X\'s authorization URL (PKCE, state); the callback saves the channel for that organization', async () => {
    const { apiKey, organizationId } = await organization();
    const answer = await social(apiKey, 'x');
    expect(answer.status).toBe(200);
    const url = new URL(urlAnswer.parse(answer.body).url);
    expect(`${url.origin}${url.pathname}`).toBe(`${x.url}/i/oauth2/authorize`);
    expect(url.searchParams.get('redirect_uri')).toBe(`${frontendUrl}/channels/callback/x`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const consent = await fetch(url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    const page = await fetch(back, { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Grace is connected');
    const listed = await api(stack.baseUrl, apiKey, `${v1}/integrations`);
    expect(listed.body).toEqual([
      expect.objectContaining({ identifier: 'x', name: 'Grace', profile: 'grace', refreshNeeded: false }),
    ]);
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(1);

    const replayed = await fetch(back, { redirect: 'manual' });
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('already used');
  });

  it('reconnects in place with ?refresh, and 404s a channel of another organization or platform', async () => {
    const { apiKey } = await organization();
    const stranger = await organization();
    const connect = async (key: string, query = '') => {
      const { url } = urlAnswer.parse((await social(key, `x${query}`)).body);
      const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '');
      return /channel <code>([0-9a-f]{24})<\/code>/.exec(await (await fetch(back)).text())?.[1];
    };
    const id = await connect(apiKey);
    expect(await connect(apiKey, `?refresh=${id ?? ''}`)).toBe(id);
    expectError(await social(stranger.apiKey, `x?refresh=${id ?? ''}`), 404, 'not_found');
    expectError(
      await social(apiKey, `mastodon?refresh=${id ?? ''}&instance=https://mastodon.example`),
      404,
      'not_found',
    );
  });

  const formLinks = 'points credentials platforms at a form link of their own, '
    + 'a Mastodon without its instance at its form';
  it(formLinks, async () => {
    const { apiKey } = await organization();
    const telegram = new URL(urlAnswer.parse((await social(apiKey, 'telegram')).body).url);
    expect(`${telegram.origin}${telegram.pathname}`).toBe(`${frontendUrl}/channels/connect/telegram`);
    expect(telegram.searchParams.get('key')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const another = new URL(urlAnswer.parse((await social(apiKey, 'telegram')).body).url);
    expect(another.searchParams.get('key')).not.toBe(telegram.searchParams.get('key'));
    expect((await social(apiKey, 'mastodon')).body).toEqual({ url: `${frontendUrl}/channels/connect/mastodon` });
  });

  it('says which settings an unconfigured platform lacks (409), and 404s a platform SPS does not know', async () => {
    const { apiKey } = await organization();
    const vk = new URL(urlAnswer.parse((await social(apiKey, 'vk')).body).url);
    expect([vk.origin, vk.searchParams.get('client_id'), vk.searchParams.has('code_challenge')])
      .toEqual(['https://id.vk.com', 'vk-app-1', true]);
    const message = expectError(await social(apiKey, 'linkedin'), 409, 'platform_not_configured');
    expect(message).toContain('LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET');
    expect(expectError(await social(apiKey, 'discord'), 409, 'platform_not_configured')).toContain(
      'DISCORD_BOT_TOKEN',
    );
    expect(expectError(await social(apiKey, 'myspace'), 404, 'not_found')).toContain('myspace');
  });
});
