// Every platform's simulator started and seeded with one account (two targets where the platform
// offers a picker), with the operator settings that point SPS at them: the world of the test that
// connects all 27 platforms end to end (test/e2e/connect-every-platform.test.ts).
import { platformEnvPrefix } from '../../shared/platforms/kit/platform-app.ts';
import { startBlueskySimulator } from './bluesky/bluesky-simulator.ts';
import { startDevtoSimulator } from './devto/devto-simulator.ts';
import { startDiscordSimulator } from './discord/discord-simulator.ts';
import { startDribbbleSimulator } from './dribbble/dribbble-simulator.ts';
import { startFacebookSimulator } from './facebook/facebook-simulator.ts';
import { startGoogleSimulator } from './google/google-simulator.ts';
import { startHashnodeSimulator } from './hashnode/hashnode-simulator.ts';
import {
  startInstagramStandaloneSimulator,
} from './instagram-standalone/instagram-standalone-simulator.ts';
import { startInstagramSimulator } from './instagram/instagram-simulator.ts';
import { startLemmySimulator } from './lemmy/lemmy-simulator.ts';
import { startLinkedinPageSimulator } from './linkedin-page/linkedin-page-simulator.ts';
import { startLinkedinSimulator } from './linkedin/linkedin-simulator.ts';
import { startListmonkSimulator } from './listmonk/listmonk-simulator.ts';
import { MastodonSimulator } from './mastodon/mastodon-simulator.ts';
import { startMediumSimulator } from './medium/medium-simulator.ts';
import { relayEvent, startNostrRelaySimulator } from './nostr/nostr-relay-simulator.ts';
import { startPinterestSimulator } from './pinterest/pinterest-simulator.ts';
import { startRedditSimulator } from './reddit/reddit-simulator.ts';
import { startSlackSimulator } from './slack/slack-simulator.ts';
import { startTelegramSimulator } from './telegram/telegram-simulator.ts';
import { startThreadsSimulator } from './threads/threads-simulator.ts';
import { startTikTokSimulator } from './tiktok/tiktok-simulator.ts';
import { startVkSimulator } from './vk/vk-simulator.ts';
import { startNeynarSimulator } from './warpcast/neynar-simulator.ts';
import { startWordpressSimulator } from './wordpress/wordpress-simulator.ts';
import { startXSimulator } from './x/x-simulator.ts';

/**
 * One account a platform's simulator holds, and how its owner connects it: OAuth platforms
 * through the platform's consent page (choosing `pick`, the second target, where the platform
 * offers several), credentials platforms by typing `fields` into the dashboard's form.
 */
export type PlatformAccount =
  | { kind: 'oauth2'; name: string; query?: Record<string, string>; pick?: string }
  | { kind: 'credentials'; name: string; fields: Record<string, string> };

interface AppRegistration {
  clientId: string;
  clientSecret: string;
}

/** The operator's settings pointing one platform at its simulator (docs/configuration.md, Platforms). */
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

export interface SimulatedPlatforms {
  env: Record<string, string>;
  accounts: ReadonlyMap<string, PlatformAccount>;
  close(): Promise<void>;
}

/** Every platform's simulator, each seeded as its room's connect test seeds it (connect.test.ts). */
export async function startPlatforms(): Promise<SimulatedPlatforms> {
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
        // Slack's ids are nine or more characters (its description's pattern, which the simulator holds).
        channels: [
          { id: 'C01GENERAL', name: 'general', isPrivate: false },
          { id: 'C04NEWSDESK', name: 'news', isPrivate: false },
        ],
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
    ['slack', { kind: 'oauth2', name: '#news', pick: 'T0ACME/C04NEWSDESK' }],
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
