import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adaChannels, adaCredentials, adaGuild, adaGuildId, discordAdapterFor, otherGuild, partOf,
} from '../../../test/simulators/discord/discord-fixture.ts';
import {
  startDiscordSimulator, type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import type { PlatformAdapter, ToolHandler } from '../kit/platform-adapter.ts';
import { discord as definition } from './definition.ts';

let discord: RunningDiscordSimulator;
let adapter: PlatformAdapter;

beforeAll(async () => {
  discord = await startDiscordSimulator({ ada: adaGuild(), other: otherGuild() });
  discord.installBot(adaGuildId);
  adapter = discordAdapterFor(discord);
});

afterAll(async () => {
  await discord.close();
});

function tool(name: string): ToolHandler {
  const handler = adapter.tools[name];
  if (handler === undefined) throw new Error(`no tool ${name}`);
  return handler;
}

describe('discord adapter: tools', () => {
  it('implements every tool the definition declares', () => {
    expect(Object.keys(adapter.tools).sort()).toEqual(definition.tools.map((item) => item.methodName).sort());
  });

  it('lists the connected server\'s text, announcement and forum channels', async () => {
    const channels = await tool('channels')(adaCredentials, {});

    expect(channels).toEqual([
      { id: adaChannels.general, name: 'general', type: 'text' },
      { id: adaChannels.news, name: 'news', type: 'announcement' },
      { id: adaChannels.ideas, name: 'ideas', type: 'forum' },
      { id: adaChannels.readOnly, name: 'read-only', type: 'text' },
      { id: adaChannels.hidden, name: 'staff', type: 'text' },
      { id: adaChannels.noThreads, name: 'no-threads', type: 'text' },
      { id: adaChannels.noFiles, name: 'no-files', type: 'text' },
      { id: adaChannels.noHistory, name: 'no-history', type: 'text' },
    ]);
    const [request] = discord.requestsTo('GET /guilds/:id/channels').slice(-1);
    expect(request?.path).toBe(`/api/v10/guilds/${adaGuildId}/channels`);
  });

  it('lists the roles with the mention each takes', async () => {
    const roles = await tool('roles')(adaCredentials, {});

    expect(roles).toEqual([
      { id: adaGuildId, name: '@everyone', mention: '@everyone', mentionable: false },
      { id: '1300000000000000001', name: 'Moderators', mention: '<@&1300000000000000001>', mentionable: true },
      { id: '1300000000000000002', name: 'Readers', mention: '<@&1300000000000000002>', mentionable: false },
    ]);
  });

  it('finds members by the start of a name, with their mention', async () => {
    const members = await tool('searchMembers')(adaCredentials, { query: 'ada' });

    expect(members).toEqual([
      { id: '1400000000000000001', username: 'ada', displayName: 'Ada Lovelace', mention: '<@1400000000000000001>' },
      { id: '1400000000000000002', username: 'adam', displayName: 'Adam S.', mention: '<@1400000000000000002>' },
    ]);
    const [request] = discord.requestsTo('GET /guilds/:id/members/search').slice(-1);
    expect(request?.query.get('limit')).toBe('25');
  });

  it('refuses a member search without a query, without calling Discord', async () => {
    const before = discord.received.length;
    const error = await platformFailure(tool('searchMembers')(adaCredentials, { query: '  ' }));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('query (the start of a username or nickname) is required');
    expect(discord.received).toHaveLength(before);
  });

  it('says the bot is no longer in the server when it was removed (50001)', async () => {
    discord.world.botIn.delete(adaGuildId);
    try {
      const error = await platformFailure(tool('roles')(adaCredentials, {}));
      expect(error.message).toMatch(/Missing Access \(50001\)/);
    } finally {
      discord.installBot(adaGuildId);
    }
  });
});

describe('discord adapter: analytics and recent messages', () => {
  it('counts a message\'s reactions', async () => {
    const { releaseId } = await adapter.publish(partOf('React to me'));
    const messageId = releaseId.split('_')[1] ?? '';
    discord.react(messageId, '🔥', 3);
    discord.react(messageId, '👍', 2);

    expect(await adapter.analytics?.post(adaCredentials, releaseId)).toEqual([{ label: 'Reactions', value: 5 }]);
  });

  it('counts no reactions as zero', async () => {
    const { releaseId } = await adapter.publish(partOf('Quiet'));
    expect(await adapter.analytics?.post(adaCredentials, releaseId)).toEqual([{ label: 'Reactions', value: 0 }]);
  });

  it('reads the server\'s approximate member count', async () => {
    expect(await adapter.analytics?.account(adaCredentials)).toEqual([{ label: 'Members', value: 1_234 }]);
    const [request] = discord.requestsTo('GET /guilds/:id').slice(-1);
    expect(request?.query.get('with_counts')).toBe('true');
  });

  it('offers the bot\'s latest messages in the connected channel, as release ids and links', async () => {
    const { releaseId, releaseURL } = await adapter.publish(partOf('Recent one'));

    const recent = await adapter.recentContent(adaCredentials);
    expect(recent[0]).toEqual({ id: releaseId, url: releaseURL });
  });
});
