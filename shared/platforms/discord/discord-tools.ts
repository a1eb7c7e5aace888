import { z } from 'zod';
import type { ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { readDiscordCredential } from './credential.ts';
import type { DiscordApi } from './discord-api.ts';
import { provider } from './discord-errors.ts';
import { snowflake } from './discord-messages.ts';

/** Channel types a post can go to, as the tool names them. */
const postableKinds: Readonly<Record<number, string>> = { 0: 'text', 5: 'announcement', 15: 'forum', 16: 'media' };

const channelList = z.array(z.object({
  id: snowflake,
  type: z.number().int(),
  name: z.string().nullish(),
  position: z.number().int().optional(),
}));

const roleList = z.array(z.object({
  id: snowflake,
  name: z.string(),
  position: z.number().int().optional(),
  mentionable: z.boolean().optional(),
  managed: z.boolean().optional(),
}));

const memberList = z.array(z.object({
  user: z.object({ id: snowflake, username: z.string(), global_name: z.string().nullish() }),
  nick: z.string().nullish(),
}));

const searchInput = z.object({
  query: z.string({ error: 'query (the start of a username or nickname) is required' }).trim()
    .min(1, 'query (the start of a username or nickname) is required').max(100),
  limit: z.coerce.number().int().min(1).max(1000).default(25),
});

/**
 * The tools the definition declares, read with the bot's token from the server the channel was
 * connected in: the channels a post can go to, the roles and members to mention (with the
 * mention text Discord reads: `<@&id>`, `<@id>`, and `@everyone` for the server's own role).
 */
export function discordTools(api: DiscordApi): Record<string, ToolHandler> {
  const guildOf = (accessToken: string): string => readDiscordCredential(accessToken).guildId;

  return {
    async channels(channel) {
      const guildId = guildOf(channel.accessToken);
      const channels = await api.call('GET', `/guilds/${guildId}/channels`, channelList, 'a channel list');
      return channels.flatMap((item) => {
        const kind = postableKinds[item.type];
        return kind === undefined ? [] : [{ id: item.id, name: item.name ?? item.id, type: kind }];
      });
    },

    async roles(channel) {
      const guildId = guildOf(channel.accessToken);
      const roles = await api.call('GET', `/guilds/${guildId}/roles`, roleList, 'a role list');
      return roles.map((role) => ({
        id: role.id,
        name: role.name,
        // The @everyone role has the server's id; its mention is the plain word.
        mention: role.id === guildId ? '@everyone' : `<@&${role.id}>`,
        mentionable: role.mentionable ?? false,
      }));
    },

    async searchMembers(channel, data) {
      const wanted = searchInput.safeParse(data);
      if (!wanted.success) {
        const message = wanted.error.issues.map((issue) => issue.message).join('; ');
        throw new PlatformError({ kind: 'permanent', provider, message });
      }
      const guildId = guildOf(channel.accessToken);
      const query = { query: wanted.data.query, limit: String(wanted.data.limit) };
      const members = await api.call('GET', `/guilds/${guildId}/members/search`, memberList, 'members', {}, query);
      return members.map((member) => ({
        id: member.user.id,
        username: member.user.username,
        displayName: member.nick ?? member.user.global_name ?? member.user.username,
        mention: `<@${member.user.id}>`,
      }));
    },
  };
}
