import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adaChannels, adaCredentials, adaGuild, adaGuildId, discordAdapterFor, otherGuild, partOf, replyOf,
} from '../../../test/simulators/discord/discord-fixture.ts';
import {
  startDiscordSimulator, type RunningDiscordSimulator,
} from '../../../test/simulators/discord/discord-simulator.ts';
import type { PlatformAdapter } from '../kit/platform-adapter.ts';

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

const messageIds = () => discord.world.messages.map((message) => message.id);

describe('discord adapter: removing posts', () => {
  it('deletes the bot\'s message and its reply in the thread, each with DELETE .../messages/:id', async () => {
    const root = await adapter.publish(partOf('Going away'));
    const reply = await adapter.comment(replyOf(root.releaseId, 'Me too'));
    for (const releaseId of [reply.releaseId, root.releaseId]) {
      await adapter.remove?.(adaCredentials, { releaseId, settings: {} });
    }
    const gone = [root, reply].map(({ releaseId }) => releaseId.split('_')[1]);
    expect(messageIds().filter((id) => gone.includes(id))).toEqual([]);
    expect(discord.requestsTo('DELETE /channels/:id/messages/:id')).toHaveLength(2);
    // Already gone: Discord's Unknown Message counts as removed.
    const again = adapter.remove?.(adaCredentials, { releaseId: root.releaseId, settings: {} });
    await expect(again).resolves.toBeUndefined();
  });

  it('deletes a forum post as its thread', async () => {
    const post = await adapter.publish(partOf('A forum post', { channel: adaChannels.ideas, thread_name: 'Doomed' }));
    const [threadId] = post.releaseId.split('_');
    expect(discord.world.channels.has(threadId ?? '')).toBe(true);
    await adapter.remove?.(adaCredentials, { releaseId: post.releaseId, settings: {} });
    expect(discord.world.channels.has(threadId ?? '')).toBe(false);
    expect(discord.requestsTo('DELETE /channels/:id')).toHaveLength(1);
  });
});
