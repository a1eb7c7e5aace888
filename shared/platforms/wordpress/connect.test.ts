import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startWordpressSimulator, type RunningWordpressSimulator, type SimulatedWordpressUser,
} from '../../../test/simulators/wordpress/wordpress-simulator.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import { connectWithCredentials } from '../../domain/channels/connect-with-credentials.ts';
import { createOrganization } from '../../domain/organizations/organizations.ts';
import { DomainError } from '../../errors.ts';
import { connectionPolicyFor, type ConnectionPolicy } from '../../net/connection-policy.ts';
import { wordpressConnect } from './connect.ts';
import { readWordpressCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { noCache } from '../../cache/invalidation-bus.ts';

const author: SimulatedWordpressUser = {
  id: 7,
  login: 'ada',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  slug: 'ada-lovelace',
  roles: ['author'],
  applicationPasswords: ['abcd EFGH 1234 ijkl MNOP 5678'],
};

const contributor: SimulatedWordpressUser = {
  id: 8,
  login: 'charles',
  email: 'charles@example.com',
  name: 'Charles Babbage',
  slug: 'charles',
  roles: ['contributor'],
  applicationPasswords: ['zzzz yyyy xxxx wwww vvvv uuuu'],
};

const contextWith = (userHosts: ConnectionPolicy) => testConnectContext({ userHosts });

const privateNetworkAllowed = contextWith(connectionPolicyFor(true));
const adaPassword = 'abcd EFGH 1234 ijkl MNOP 5678';

/** A port on loopback nothing listens on (bound by the OS, then released). */

describe('WordPress connect against the simulator', () => {
  let site: RunningWordpressSimulator;
  let folderSite: RunningWordpressSimulator;

  beforeAll(async () => {
    site = await startWordpressSimulator({ users: [author, contributor] });
    folderSite = await startWordpressSimulator({ users: [author], folder: '/blog', prettyPermalinks: false });
  });
  afterAll(async () => {
    await site.close();
    await folderSite.close();
  });

  it('signs in with the application password and reads the profile', async () => {
    const values = { siteUrl: `${site.siteUrl}/`, username: 'ada', applicationPassword: adaPassword };
    const account = await wordpressConnect.verify(values, privateNetworkAllowed);

    expect(account).toMatchObject({
      accountId: `7@${site.siteUrl}`,
      name: 'Ada Lovelace',
      username: 'ada',
      instanceUrl: site.siteUrl,
      refreshToken: null,
      expiresAt: null,
    });
    expect(account.picture).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?s=96&/);
    const credential = readWordpressCredential(account.accessToken);
    expect(credential).toEqual({ username: 'ada', applicationPassword: adaPassword });
    const request = site.received.at(-1);
    expect(request?.path).toBe('/wp-json/wp/v2/users/me');
    expect(request?.query.get('context')).toBe('edit');
    expect(request?.headers.authorization).toBe(`Basic ${Buffer.from(`ada:${adaPassword}`).toString('base64')}`);
  });

  it('finds WordPress in its folder through ?rest_route= when the site has no pretty permalinks', async () => {
    const typed = `${folderSite.siteUrl}/wp-admin/profile.php`;
    const values = { siteUrl: typed, username: 'ada@example.com', applicationPassword: 'abcdEFGH1234ijklMNOP5678' };
    const account = await wordpressConnect.verify(values, privateNetworkAllowed);

    expect(account.instanceUrl).toBe(folderSite.siteUrl);
    expect(account.accountId).toBe(`7@${folderSite.siteUrl}`);
    expect(folderSite.received.map((request) => request.path)).toEqual(['/blog/wp-json/wp/v2/users/me', '/blog/']);
    expect(folderSite.received[1]?.query.get('rest_route')).toBe('/wp/v2/users/me');
  });

  it('shows WordPress’s own message for a wrong application password', async () => {
    const values = { siteUrl: site.siteUrl, username: 'ada', applicationPassword: 'wrong wrong wrong' };
    const error = await platformFailure(wordpressConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('The provided password is an invalid application password.');
  });

  it('shows WordPress’s own message for an unknown user', async () => {
    const values = { siteUrl: site.siteUrl, username: 'nobody', applicationPassword: 'abcd EFGH 1234 ijkl MNOP 5678' };
    const error = await platformFailure(wordpressConnect.verify(values, privateNetworkAllowed));

    expect(error.message).toBe('Unknown username. Check again or try your email address.');
  });

  it('refuses a user whose role cannot publish', async () => {
    const applicationPassword = contributor.applicationPasswords[0] ?? '';
    const values = { siteUrl: site.siteUrl, username: 'charles', applicationPassword };
    const error = await platformFailure(wordpressConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('the WordPress user charles (role: contributor) cannot publish posts');
  });

  it('says so when no WordPress answers at the address', async () => {
    const values = { siteUrl: `${site.url}/not-a-blog`, username: 'ada', applicationPassword: adaPassword };
    const error = await platformFailure(wordpressConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain(`no WordPress REST API answers at ${site.url}/not-a-blog`);
  });

  it('calls an unreachable site a passing failure', async () => {
    const siteUrl = await closedOrigin();
    const values = { siteUrl, username: 'ada', applicationPassword: adaPassword };
    const error = await platformFailure(wordpressConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach the WordPress site');
  });

  it('refuses a private address under the production policy, before sending anything', async () => {
    const before = site.received.length;
    const siteUrl = `https://127.0.0.1:${new URL(site.url).port}`;
    const values = { siteUrl, username: 'ada', applicationPassword: adaPassword };
    const error = await platformFailure(wordpressConnect.verify(values, contextWith(connectionPolicyFor(false))));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('127.0.0.1 is an address that may not be fetched');
    expect(site.received.length).toBe(before);
  });

  it('refuses plain http unless the policy allows it', async () => {
    const before = site.received.length;
    const httpsOnly = contextWith({ isAllowedAddress: () => true, allowHttp: false });
    const values = { siteUrl: site.siteUrl, username: 'ada', applicationPassword: adaPassword };
    const error = await platformFailure(wordpressConnect.verify(values, httpsOnly));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('only https URLs can be fetched');
    expect(site.received.length).toBe(before);
  });
});

describe('connecting a WordPress channel', () => {
  let ctx: TestContext;
  let site: RunningWordpressSimulator;
  let organizationId: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    site = await startWordpressSimulator({ users: [author] });
    ({ organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'WordPress connectors' }));
  });
  afterAll(async () => {
    await site.close();
    await ctx.cleanup();
  });

  const connect = (applicationPassword: string) => connectWithCredentials(
    { ...ctx, caches: noCache },
    wordpressConnect,
    privateNetworkAllowed,
    { organizationId, provider: 'wordpress', values: { siteUrl: site.siteUrl, username: 'ada', applicationPassword } },
  );

  it('saves the channel with its sealed credential and profile, and reconnects it in place', async () => {
    const first = await connect(adaPassword);
    expect(first.created).toBe(true);

    const channel = await ctx.db.channels.findById(first.id).lean();
    expect(channel).toMatchObject({
      provider: 'wordpress',
      accountId: `7@${site.siteUrl}`,
      name: 'Ada Lovelace',
      profile: 'ada',
      instanceUrl: site.siteUrl,
      refreshTokenSealed: null,
    });
    const sealed = channel?.tokenSealed ?? '';
    expect(sealed).not.toContain('abcd');
    expect(readWordpressCredential(ctx.secrets.open(sealed)).applicationPassword).toBe(adaPassword);

    const again = await connect('abcdEFGH1234ijklMNOP5678');
    expect(again).toMatchObject({ id: first.id, created: false });
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(1);
  });

  it('answers connect_refused with WordPress’s message and saves nothing for a wrong password', async () => {
    const before = await ctx.db.channels.countDocuments({});
    const error: unknown = await connect('not the password').then(() => null, (caught: unknown) => caught);

    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'connect_refused',
      message: 'The provided password is an invalid application password.',
    });
    expect(await ctx.db.channels.countDocuments({})).toBe(before);
  });
});
