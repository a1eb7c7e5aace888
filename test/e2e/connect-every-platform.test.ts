import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { platformEnvPrefix } from '../../shared/platforms/kit/platform-app.ts';
import type { PlatformConnect } from '../../shared/platforms/kit/platform-connect.ts';
import { allPlatforms, findPlatformModule } from '../../shared/platforms/platforms.ts';
import { DashboardClient, newAccount, type PageAnswer } from '../browser/dashboard-client.ts';
import { startBlueskySimulator } from '../simulators/bluesky/bluesky-simulator.ts';
import { startDevtoSimulator } from '../simulators/devto/devto-simulator.ts';
import { startDiscordSimulator } from '../simulators/discord/discord-simulator.ts';
import { startDribbbleSimulator } from '../simulators/dribbble/dribbble-simulator.ts';
import { startFacebookSimulator } from '../simulators/facebook/facebook-simulator.ts';
import { startGoogleSimulator } from '../simulators/google/google-simulator.ts';
import { startHashnodeSimulator } from '../simulators/hashnode/hashnode-simulator.ts';
import {
  startInstagramStandaloneSimulator,
} from '../simulators/instagram-standalone/instagram-standalone-simulator.ts';
import { startInstagramSimulator } from '../simulators/instagram/instagram-simulator.ts';
import { startLemmySimulator } from '../simulators/lemmy/lemmy-simulator.ts';
import { startLinkedinPageSimulator } from '../simulators/linkedin-page/linkedin-page-simulator.ts';
import { startLinkedinSimulator } from '../simulators/linkedin/linkedin-simulator.ts';
import { startListmonkSimulator } from '../simulators/listmonk/listmonk-simulator.ts';
import { MastodonSimulator } from '../simulators/mastodon-simulator.ts';
import { startMediumSimulator } from '../simulators/medium/medium-simulator.ts';
import { relayEvent, startNostrRelaySimulator } from '../simulators/nostr/nostr-relay-simulator.ts';
import { startPinterestSimulator } from '../simulators/pinterest/pinterest-simulator.ts';
import { startRedditSimulator } from '../simulators/reddit/reddit-simulator.ts';
import { startSlackSimulator } from '../simulators/slack/slack-simulator.ts';
import { startTelegramSimulator } from '../simulators/telegram/telegram-simulator.ts';
import { startThreadsSimulator } from '../simulators/threads/threads-simulator.ts';
import { startTikTokSimulator } from '../simulators/tiktok/tiktok-simulator.ts';
import { startVkSimulator } from '../simulators/vk/vk-simulator.ts';
import { startNeynarSimulator } from '../simulators/warpcast/neynar-simulator.ts';
import { startWordpressSimulator } from '../simulators/wordpress/wordpress-simulator.ts';
import { startXSimulator } from '../simulators/x/x-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

const v1 = '/api/public/v1';
const urlAnswer = z.object({ url: z.url() });
const listedChannels = z.array(z.object({ id: z.string(), identifier: z.string(), name: z.string() }).loose());

/**
 * One account a platform's simulator holds, and how its owner connects it: OAuth platforms
 * through the platform's consent page (choosing `pick`, the second target, where the platform
 * offers several), credentials platforms by typing `fields` into the dashboard's form.
 */
type PlatformAccount =
  | { kind: 'oauth2'; name: string; query?: Record<string, string>; pick?: string }
  | { kind: 'credentials'; name: string; fields: Record<string, string> };

interface AppRegistration {
  clientId: string;
  clientSecret: string;
}

/** The operator's settings pointing one platform at its simulator (README, environment table). */
function appSettings(
  identifier: string,
  app: AppRegistration | null,
  urls: { apiUrl: string; authUrl?: string; tokenUrl?: string },
): Record<string, string> {
  const prefix = platformEnvPrefix(identifier);
  return {
    ...(app === null ? {} : { [`${prefix}_CLIENT_ID`]: app.clientId, [`${prefix}_CLIENT_SECRET`]: app.clientSecret }),
    [`${prefix}_API_URL`]: urls.apiUrl,
    [`${prefix}_AUTH_URL`]: urls.authUrl ?? urls.apiUrl,
    [`${prefix}_TOKEN_URL`]: urls.tokenUrl ?? urls.apiUrl,
  };
}

interface SimulatedPlatforms {
  env: Record<string, string>;
  accounts: ReadonlyMap<string, PlatformAccount>;
  close(): Promise<void>;
}

/** Every platform's simulator, each seeded as its room's connect test seeds it (connect.test.ts). */
async function startPlatforms(): Promise<SimulatedPlatforms> {
  const [
    x, linkedin, linkedinPage, facebook, instagram, instagramStandalone, threads, bluesky, mastodon,
    neynar, relay, vk, google, tiktok, reddit, lemmy, discord, slack, telegram, pinterest, dribbble,
    medium, devto, hashnode, wordpress, listmonk,
  ] = await Promise.all([
    startXSimulator(),
    startLinkedinSimulator(),
    startLinkedinPageSimulator(),
    startFacebookSimulator(),
    startInstagramSimulator(),
    startInstagramStandaloneSimulator(),
    startThreadsSimulator(),
    startBlueskySimulator(),
    new MastodonSimulator().start(),
    startNeynarSimulator(),
    startNostrRelaySimulator(),
    startVkSimulator({
      'user-1': {
        id: 210700286, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada',
        photo200: 'https://sun9-1.userapi.com/ada.jpg',
      },
    }),
    // One Google account holding both YouTube channels and Business Profile locations.
    startGoogleSimulator({
      ada: {
        channels: [
          { id: 'UC-one', title: 'Ada Films', customUrl: '@adafilms', thumbnail: 'https://yt3.ggpht.com/one.jpg' },
          { id: 'UC-two', title: 'Ada Talks', customUrl: '@adatalks', thumbnail: 'https://yt3.ggpht.com/two.jpg' },
        ],
        businessAccounts: [{
          name: 'accounts/100',
          accountName: 'Ada',
          locations: [{ name: 'locations/a1', title: 'Ada Bakery' }, { name: 'locations/a2', title: 'Ada Books' }],
        }],
      },
    }),
    startTikTokSimulator({
      'user-1': {
        openId: '-000AbCdEf', unionId: 'union-1', displayName: 'Ada on TikTok', username: 'ada.films',
        avatarUrl: 'https://p16-sign.tiktokcdn.com/ada.jpeg',
      },
    }),
    startRedditSimulator(),
    startLemmySimulator(),
    startDiscordSimulator({
      'user-1': {
        id: '41771983423143937',
        name: 'Ada’s server',
        icon: 'a1b2c3',
        channels: [{ id: '901', type: 0, name: 'general' }, { id: '903', type: 5, name: 'announcements' }],
      },
    }),
    startSlackSimulator({
      'user-1': {
        teamId: 'T0ACME',
        teamName: 'Acme',
        channels: [{ id: 'C01', name: 'general', isPrivate: false }, { id: 'C04', name: 'news', isPrivate: false }],
      },
    }),
    startTelegramSimulator(),
    startPinterestSimulator(),
    startDribbbleSimulator(),
    startMediumSimulator([{
      id: '5303d74c64f66366f00cb9b2a94f3251bf5', username: 'ada', name: 'Ada on Medium',
      imageUrl: 'https://images.medium.com/0*ada.png', tokens: ['181d415f34379af07b2c11d144dfbe35d'],
    }]),
    startDevtoSimulator([{
      id: 1234, username: 'ada', name: 'Ada on dev.to', profileImage: 'https://media.dev.to/ada.png',
      apiKeys: ['devto-good-key'],
    }]),
    startHashnodeSimulator([{
      id: '65a1f0c2e4b0a1b2c3d4e5f6', username: 'ada', name: 'Ada on Hashnode',
      profilePicture: 'https://cdn.hashnode.com/res/hashnode/image/upload/ada.png', email: 'ada@example.com',
      tokens: ['a1b2c3d4-e5f6-7890-abcd-ef1234567890'],
    }]),
    startWordpressSimulator({
      users: [{
        id: 7, login: 'ada', email: 'ada@example.com', name: 'Ada on WordPress', slug: 'ada', roles: ['author'],
        applicationPasswords: ['abcd EFGH 1234 ijkl MNOP 5678'],
      }],
    }),
    startListmonkSimulator({
      users: [{
        id: 3, username: 'sps', name: 'SPS publisher', token: 'Qm9vdHN0cmFwVG9rZW4',
        role: { id: 1, name: 'Super Admin', permissions: [] },
      }],
      siteName: 'Acme newsletter',
    }),
  ]);

  x.addUser({ id: '2244994945', name: 'Ada on X', username: 'ada', profile_image_url: 'https://pbs.twimg.com/a.jpg' });
  x.authority.consentingUser = '2244994945';
  const member = {
    sub: 'yrZCpj2Z12', name: 'Ada on LinkedIn', given_name: 'Ada', family_name: 'Lovelace',
    picture: 'https://media.licdn.com/ada', email: 'ada@example.org',
  };
  linkedin.addMember(member);
  linkedin.authority.consentingUser = member.sub;
  linkedinPage.addMember(member);
  const administrator = [{ sub: member.sub, role: 'ADMINISTRATOR', state: 'APPROVED' } as const];
  linkedinPage.addOrganization({ id: 1001, localizedName: 'Engines', vanityName: 'engines', roles: administrator });
  linkedinPage.addOrganization({ id: 1002, localizedName: 'Difference', vanityName: 'diff', roles: administrator });
  linkedinPage.authority.consentingUser = member.sub;
  facebook.addPages('ada', [
    { id: '1001', name: 'Ada Bakery', pictureUrl: 'https://scontent.example/1001.jpg', tasks: ['CREATE_CONTENT'] },
    { id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg', tasks: ['CREATE_CONTENT'] },
  ]);
  facebook.authority.consentingUser = 'ada';
  const igPicture = (name: string) => `https://cdninstagram.example/${name}.jpg`;
  instagram.linkAccount('ada', { id: '1001', name: 'Ada Bakery' }, {
    id: '17841400000000001', username: 'ada.bakes', name: 'Ada Bakes', profilePictureUrl: igPicture('bakes'),
  });
  instagram.linkAccount('ada', { id: '1002', name: 'Ada Books' }, {
    id: '17841400000000002', username: 'ada.reads', name: 'Ada Reads', profilePictureUrl: igPicture('reads'),
  });
  instagram.authority.consentingUser = 'ada';
  instagramStandalone.addUser('ada', {
    userId: '17841400000000009', appScopedId: '7000000000000001', username: 'ada.solo', name: 'Ada Solo',
    profilePictureUrl: igPicture('solo'),
  });
  instagramStandalone.authority.consentingUser = 'ada';
  threads.addUser({
    id: '25000000000000001', username: 'ada', name: 'Ada on Threads',
    profilePictureUrl: 'https://cdn.threads.example/ada.jpg', biography: 'Engines',
  });
  threads.authority.consentingUser = '25000000000000001';
  bluesky.addAccount({
    did: 'did:plc:alice123', handle: 'alice.bsky.social', email: 'alice@example.org',
    appPassword: 'abcd-efgh-ijkl-mnop', displayName: 'Alice on Bluesky',
  });
  neynar.addApiKey('NEYNAR-APP-KEY-1');
  const signerUuid = '19d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
  neynar.addSigner({ uuid: signerUuid, apiKey: 'NEYNAR-APP-KEY-1', status: 'approved', fid: 3621 });
  neynar.addUser({ fid: 3621, username: 'alice', displayName: 'Alice on Farcaster' });
  // BIP-340 test vector 0 (secret key 3), as the Nostr room's test uses.
  const nostrKey = '0000000000000000000000000000000000000000000000000000000000000003';
  // Signed with that key: the room drops a profile whose signature does not verify.
  relay.addEvent(relayEvent(nostrKey, {
    created_at: 1_750_000_000,
    kind: 0,
    tags: [],
    content: JSON.stringify({ name: 'alice', display_name: 'Alice on Nostr' }),
  }));
  google.authority.consentingUser = 'ada';
  reddit.addUser({ id: '1w72', name: 'spez', icon_img: 'https://styles.redditmedia.com/spez.png' });
  reddit.authority.consentingUser = '1w72';
  lemmy.addUser({
    id: 7, name: 'alice', email: 'alice@example.org', password: 'correct horse', displayName: 'Alice A.',
  });
  const botToken = '7012345678:AAHk-simulated_token';
  telegram.addBot({ token: botToken, id: 7012345678, username: 'sps_bot', firstName: 'SPS' });
  telegram.addChat({
    id: -1001234567890, type: 'channel', title: 'Release notes', username: 'release_notes',
    members: new Map([[7012345678, { status: 'administrator', canPostMessages: true }]]),
  });
  pinterest.addUser({
    id: '549755885175', username: 'maker', profile_image: 'https://i.pinimg.com/maker.jpg', account_type: 'BUSINESS',
    boards: [
      { id: '549755885175001', name: 'Recipes', privacy: 'PUBLIC' },
      { id: '549755885175002', name: 'Workshop', privacy: 'PUBLIC' },
    ],
  });
  pinterest.authority.consentingUser = '549755885175';
  dribbble.addUser({
    id: 1, name: 'Dan Cederholm', login: 'simplebits', can_upload_shot: true,
    avatar_url: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg',
  });
  dribbble.authority.consentingUser = '1';

  const env: Record<string, string> = {
    ...appSettings('x', x, { apiUrl: x.url }),
    ...appSettings('linkedin', linkedin, { apiUrl: linkedin.url }),
    ...appSettings('linkedin-page', linkedinPage, { apiUrl: linkedinPage.url }),
    ...appSettings('facebook', facebook, facebook.app),
    ...appSettings('instagram', instagram, instagram.app),
    ...appSettings('instagram-standalone', instagramStandalone, instagramStandalone.app),
    ...appSettings('threads', threads, threads.app),
    ...appSettings('bluesky', null, { apiUrl: bluesky.url }),
    ...appSettings('warpcast', null, { apiUrl: neynar.url }),
    ...appSettings('vk', vk, { apiUrl: vk.url }),
    ...appSettings('youtube', google, { apiUrl: google.url }),
    ...appSettings('gmb', google, { apiUrl: google.url }),
    ...appSettings('tiktok', tiktok, { apiUrl: tiktok.url }),
    ...appSettings('reddit', reddit, { apiUrl: reddit.url }),
    // Discord and Slack serve their API under /api and their consent page at the root.
    ...appSettings('discord', discord, { apiUrl: `${discord.url}/api`, authUrl: discord.url }),
    DISCORD_BOT_TOKEN: discord.botToken,
    ...appSettings('slack', slack, { apiUrl: `${slack.url}/api`, authUrl: slack.url }),
    ...appSettings('telegram', null, { apiUrl: telegram.url }),
    ...appSettings('pinterest', pinterest, { apiUrl: pinterest.url }),
    ...appSettings('dribbble', dribbble, { apiUrl: dribbble.url }),
    ...appSettings('medium', null, { apiUrl: medium.apiUrl }),
    ...appSettings('devto', null, { apiUrl: devto.apiUrl }),
    ...appSettings('hashnode', null, { apiUrl: hashnode.url }),
  };

  const accounts = new Map<string, PlatformAccount>([
    ['x', { kind: 'oauth2', name: 'Ada on X' }],
    ['linkedin', { kind: 'oauth2', name: 'Ada on LinkedIn' }],
    ['linkedin-page', { kind: 'oauth2', name: 'Difference', pick: 'urn:li:organization:1002' }],
    ['facebook', { kind: 'oauth2', name: 'Ada Books', pick: '1002' }],
    ['instagram', { kind: 'oauth2', name: 'Ada Reads', pick: '17841400000000002' }],
    ['instagram-standalone', { kind: 'oauth2', name: 'Ada Solo' }],
    ['threads', { kind: 'oauth2', name: 'Ada on Threads' }],
    ['bluesky', {
      kind: 'credentials', name: 'Alice on Bluesky',
      fields: { identifier: 'alice.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' },
    }],
    // Mastodon runs on many servers: the user names theirs, and SPS registers itself there.
    ['mastodon', { kind: 'oauth2', name: 'alice', query: { instance: mastodon.origin } }],
    ['warpcast', {
      kind: 'credentials', name: 'Alice on Farcaster', fields: { apiKey: 'NEYNAR-APP-KEY-1', signerUuid },
    }],
    ['nostr', { kind: 'credentials', name: 'Alice on Nostr', fields: { privateKey: nostrKey, relays: relay.url } }],
    ['vk', { kind: 'oauth2', name: 'Ada Lovelace' }],
    ['youtube', { kind: 'oauth2', name: 'Ada Talks', pick: 'UC-two' }],
    ['tiktok', { kind: 'oauth2', name: 'Ada on TikTok' }],
    ['reddit', { kind: 'oauth2', name: 'spez' }],
    ['lemmy', {
      kind: 'credentials', name: 'Alice A.',
      fields: { instanceUrl: lemmy.url, username: 'alice', password: 'correct horse' },
    }],
    ['discord', { kind: 'oauth2', name: '#announcements', pick: '903' }],
    ['slack', { kind: 'oauth2', name: '#news', pick: 'T0ACME/C04' }],
    ['telegram', { kind: 'credentials', name: 'Release notes', fields: { botToken, chat: '@release_notes' } }],
    ['pinterest', { kind: 'oauth2', name: 'Workshop', pick: '549755885175002' }],
    ['dribbble', { kind: 'oauth2', name: 'Dan Cederholm' }],
    ['medium', {
      kind: 'credentials', name: 'Ada on Medium', fields: { integrationToken: '181d415f34379af07b2c11d144dfbe35d' },
    }],
    ['devto', { kind: 'credentials', name: 'Ada on dev.to', fields: { apiKey: 'devto-good-key' } }],
    ['hashnode', {
      kind: 'credentials', name: 'Ada on Hashnode', fields: { token: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890' },
    }],
    ['wordpress', {
      kind: 'credentials', name: 'Ada on WordPress',
      fields: { siteUrl: wordpress.siteUrl, username: 'ada', applicationPassword: 'abcd EFGH 1234 ijkl MNOP 5678' },
    }],
    ['gmb', { kind: 'oauth2', name: 'Ada Books', pick: 'locations/a2' }],
    ['listmonk', {
      kind: 'credentials', name: 'sps (Acme newsletter)',
      fields: { url: listmonk.rootUrl, apiUser: 'sps', token: 'Qm9vdHN0cmFwVG9rZW4' },
    }],
  ]);

  const running = [
    x, linkedin, linkedinPage, facebook, instagram, instagramStandalone, threads, bluesky, neynar, relay, vk,
    google, tiktok, reddit, lemmy, discord, slack, telegram, pinterest, dribbble, medium, devto, hashnode,
    wordpress, listmonk,
  ];
  return {
    env,
    accounts,
    async close() {
      await Promise.all([...running.map((simulator) => simulator.close()), mastodon.stop()]);
    },
  };
}

function connectOf(identifier: string): PlatformConnect {
  const module = findPlatformModule(identifier);
  if (module === undefined) throw new Error(`${identifier} is not a platform`);
  return module.connect;
}

/** The channel id the dashboard names when it sends the user back to the channel list. */
function connectedChannelId(answer: PageAnswer): string {
  const id = /^\/channels\?connected=([0-9a-f]{24})$/.exec(answer.location ?? '')?.[1];
  if (id === undefined) {
    throw new Error(`expected a redirect to the channels, got ${String(answer.status)}: ${answer.html}`);
  }
  return id;
}

/**
 * An organization connects a channel of each of the 27 platforms itself, against each platform's
 * simulator: through `GET /social/:provider` with its API key, the platform's consent page and
 * the dashboard's callback and picker (OAuth), or the dashboard's form (credentials).
 */
describe('an organization connects every platform through the public API and the dashboard', () => {
  let platforms: SimulatedPlatforms;
  let ctx: TestContext;
  let stack: RunningStack;
  let frontendUrl = '';
  let dashboard: DashboardClient;
  let apiKey = '';
  let organizationId = '';
  const connected = new Map<string, string>();

  beforeAll(async () => {
    platforms = await startPlatforms();
    // The platforms send the user back to FRONTEND_URL, which must name the api before it listens.
    const port = await freePort();
    frontendUrl = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({ ...platforms.env, FRONTEND_URL: frontendUrl });
    stack = await startStack(ctx, { workers: false, port });
    dashboard = new DashboardClient(stack.baseUrl);
    const account = newAccount('every-platform');
    expect((await dashboard.signUp(account)).status).toBe(302);
    await dashboard.get('/settings');
    const revealed = await dashboard.post('/settings/api-key/reveal', {});
    apiKey = /id="api-key"[^>]*>([^<]+)</.exec(revealed.html)?.[1] ?? '';
    expect(apiKey).not.toBe('');
    const organization = await ctx.db.organizations.findOne({ name: account.organization }).lean();
    organizationId = organization?._id.toString() ?? '';
    expect(organizationId).not.toBe('');
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await platforms.close();
  });

  const accountOf = (identifier: string): PlatformAccount => {
    const account = platforms.accounts.get(identifier);
    if (account === undefined) throw new Error(`no simulated account for ${identifier}`);
    return account;
  };

  /** `GET /social/:provider` with the organization's key, and the URL it answers. */
  async function startConnecting(identifier: string, query: Record<string, string>): Promise<URL> {
    const search = new URLSearchParams(query).toString();
    const answer = await api(stack.baseUrl, apiKey, `${v1}/social/${identifier}${search === '' ? '' : `?${search}`}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return new URL(urlAnswer.parse(answer.body).url);
  }

  /** The platform's consent page (approving at once), the callback, and the picker where there is one. */
  async function connectWithOAuth(
    identifier: string,
    account: Extract<PlatformAccount, { kind: 'oauth2' }>,
    refresh: string | null = null,
  ): Promise<string> {
    const authorize = await startConnecting(identifier, {
      ...account.query,
      ...(refresh === null ? {} : { refresh }),
    });
    const consent = await fetch(authorize, { redirect: 'manual' });
    expect(consent.status, await consent.text()).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(`${frontendUrl}/channels/callback/${identifier}`);
    expect(back.searchParams.get('error_description') ?? back.searchParams.get('error')).toBeNull();
    const callback = await dashboard.get(`${back.pathname}${back.search}`);
    // Reconnecting finds the same account among the targets, so it skips the picker.
    if (account.pick === undefined || refresh !== null) return connectedChannelId(callback);

    const pickPath = callback.location ?? '';
    expect(pickPath, callback.html).toMatch(new RegExp(`^/channels/pick/${identifier}\\?key=`));
    const picker = await dashboard.get(pickPath);
    expect(picker.status).toBe(200);
    // The picker offers at least the first target and the one chosen here.
    expect(picker.html.match(/name="account"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(picker.html).toContain(`value="${account.pick}"`);
    const key = new URL(pickPath, frontendUrl).searchParams.get('key') ?? '';
    return connectedChannelId(await dashboard.post(`/channels/pick/${identifier}`, { key, account: account.pick }));
  }

  /** The form URL the API answers, the form page, and the form posted with the account's values. */
  async function connectWithForm(
    identifier: string,
    account: Extract<PlatformAccount, { kind: 'credentials' }>,
    refresh: string | null = null,
  ): Promise<string> {
    const formUrl = await startConnecting(identifier, refresh === null ? {} : { refresh });
    const expected = new URL(`${frontendUrl}/channels/connect/${identifier}`);
    if (refresh !== null) expected.searchParams.set('refresh', refresh);
    expect(formUrl.toString()).toBe(expected.toString());
    const form = await dashboard.get(`${formUrl.pathname}${formUrl.search}`);
    expect(form.status).toBe(200);
    const hiddenRefresh = /name="refresh" value="([^"]*)"/.exec(form.html)?.[1] ?? null;
    expect(hiddenRefresh).toBe(refresh);
    const values = { ...account.fields, ...(hiddenRefresh === null ? {} : { refresh: hiddenRefresh }) };
    return connectedChannelId(await dashboard.post(`/channels/connect/${identifier}`, values));
  }

  async function listed(): Promise<z.infer<typeof listedChannels>> {
    const answer = await api(stack.baseUrl, apiKey, `${v1}/integrations`);
    expect(answer.status).toBe(200);
    return listedChannels.parse(answer.body);
  }

  const identifiers = allPlatforms().map((platform) => platform.identifier);

  it('has one simulated account for each of the 27 platforms', () => {
    expect(identifiers).toHaveLength(27);
    expect([...platforms.accounts.keys()].sort()).toEqual([...identifiers].sort());
  });

  it.each(identifiers)('connects %s and keeps its token sealed', async (identifier) => {
    const account = accountOf(identifier);
    const connect = connectOf(identifier);
    expect(connect.kind).toBe(account.kind);
    let id: string;
    if (account.kind === 'oauth2') {
      id = await connectWithOAuth(identifier, account);
    } else {
      // The values go into the room's own fields: a key the form does not have would be dropped.
      const keys = connect.kind === 'credentials' ? connect.fields.map((field) => field.key) : [];
      for (const key of Object.keys(account.fields)) expect(keys).toContain(key);
      id = await connectWithForm(identifier, account);
    }
    connected.set(identifier, id);

    expect((await listed()).find((channel) => channel.id === id)).toMatchObject({ identifier, name: account.name });
    const channel = await ctx.db.channels.findById(id).lean();
    expect(channel?.organizationId.toString()).toBe(organizationId);
    expect(channel?.provider).toBe(identifier);
    if (account.kind === 'oauth2' && account.pick !== undefined) expect(channel?.accountId).toBe(account.pick);
    const token = ctx.secrets.open(channel?.tokenSealed ?? '');
    expect(token).not.toBe('');
    const stored = JSON.stringify(channel);
    expect(stored).not.toContain(token);
    // What the user typed into secret fields (bot tokens, passwords, keys) is never kept in clear either.
    if (account.kind === 'credentials' && connect.kind === 'credentials') {
      for (const field of connect.fields.filter((candidate) => candidate.kind === 'secret')) {
        const typed = account.fields[field.key];
        if (typed !== undefined) expect(stored).not.toContain(typed);
      }
    }
  });

  it('reconnects an OAuth and a credentials channel in place with ?refresh, keeping 27 channels', async () => {
    const xId = connected.get('x');
    const telegramId = connected.get('telegram');
    if (xId === undefined || telegramId === undefined) throw new Error('X and Telegram must be connected first');
    const x = accountOf('x');
    const telegram = accountOf('telegram');
    if (x.kind !== 'oauth2' || telegram.kind !== 'credentials') throw new Error('X is OAuth, Telegram a form');
    const before = await ctx.db.channels.findById(xId).lean();

    expect(await connectWithOAuth('x', x, xId)).toBe(xId);
    expect(await connectWithForm('telegram', telegram, telegramId)).toBe(telegramId);

    // X issued a new token on the second consent; the channel holds it now.
    const after = await ctx.db.channels.findById(xId).lean();
    expect(ctx.secrets.open(after?.tokenSealed ?? '')).not.toBe(ctx.secrets.open(before?.tokenSealed ?? ''));
    const channels = await listed();
    expect(channels).toHaveLength(27);
    expect(new Set(channels.map((channel) => channel.identifier)).size).toBe(27);
    expect(await ctx.db.channels.countDocuments({ organizationId })).toBe(27);
  });
});
