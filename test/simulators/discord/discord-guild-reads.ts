import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { invalidFormBody, isAnswer, type DiscordWorld } from './discord-world.ts';

/**
 * What the bot reads of a server and its channels (resources/guild, resources/channel):
 * `GET /guilds/{id}` (`approximate_member_count` and `approximate_presence_count` only with
 * `with_counts=true`), `GET /guilds/{id}/channels`, `GET /guilds/{id}/roles` (the @everyone role
 * has the guild's id), `GET /guilds/{id}/members/search?query=&limit=` (`query` required, `limit`
 * 1 to 1000, default 1; matches the start of a username or nickname), `GET /channels/{id}` and
 * `GET /users/@me`. Facts: /work/shared/platforms/open-and-community.md 8.1 and 8.8.
 */
export class DiscordGuildReads {
  readonly #world: DiscordWorld;

  constructor(world: DiscordWorld) {
    this.#world = world;
  }

  me(request: SimulatedRequest): SimulatedAnswer {
    const refused = this.#world.authorized(request);
    if (refused !== null) return refused;
    const { id, username, bot } = this.#world.bot;
    return { status: 200, body: { id, username, discriminator: '0', global_name: null, avatar: null, bot } };
  }

  guild(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const counts = request.query.get('with_counts') === 'true'
      ? { approximate_member_count: guild.memberCount ?? 0, approximate_presence_count: guild.onlineCount ?? 0 }
      : {};
    // A server whose boosts raised its file limit shows a higher tier (levels 2 and 3 as commonly cited).
    const limit = guild.fileLimitBytes ?? 0;
    const tier = limit >= 100 * 1024 * 1024 ? 3 : limit >= 50 * 1024 * 1024 ? 2 : 0;
    return { status: 200, body: { id: guild.id, name: guild.name, icon: guild.icon, premium_tier: tier, ...counts } };
  }

  channels(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const channels = guild.channels.map((channel, position) => ({
      id: channel.id, type: channel.type, name: channel.name, guild_id: guild.id, position, parent_id: null,
    }));
    return { status: 200, body: channels };
  }

  channel(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const found = this.#world.access(request, channelId);
    return isAnswer(found) ? found : { status: 200, body: this.#world.channelJson(found) };
  }

  roles(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const everyone = { id: guild.id, name: '@everyone', mentionable: false };
    const roles = [everyone, ...(guild.roles ?? [])].map((role, position) => ({
      id: role.id, name: role.name, color: 0, hoist: false, position, permissions: '0', managed: false,
      mentionable: role.mentionable ?? false,
    }));
    return { status: 200, body: roles };
  }

  searchMembers(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const query = request.query.get('query');
    if (query === null) return invalidFormBody(['query'], 'BASE_TYPE_REQUIRED', 'This field is required');
    const limit = Number(request.query.get('limit') ?? '1');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return invalidFormBody(['limit'], 'NUMBER_TYPE_MAX', 'int value should be between 1 and 1000.');
    }
    const wanted = query.toLowerCase();
    const found = (guild.members ?? []).filter((member) =>
      [member.username, member.globalName, member.nick]
        .some((name) => name?.toLowerCase().startsWith(wanted) === true));
    const members = found.slice(0, limit).map((member) => ({
      user: { id: member.id, username: member.username, global_name: member.globalName ?? null, avatar: null },
      nick: member.nick ?? null,
      roles: [],
      joined_at: '2024-01-01T00:00:00.000000+00:00',
    }));
    return { status: 200, body: members };
  }
}
