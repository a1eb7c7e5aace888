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
    // A bot's own user: the User object with what only its owner sees (mfa_enabled, locale, verified, email).
    const user = this.#world.userJson(this.#world.bot);
    const ownerOnly = { mfa_enabled: false, locale: 'en-US', premium_type: 0, verified: true, email: null };
    return { status: 200, body: { ...user, ...ownerOnly } };
  }

  guild(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const counts = request.query.get('with_counts') === 'true'
      ? { approximate_member_count: guild.memberCount ?? 0, approximate_presence_count: guild.onlineCount ?? 0 }
      : {};
    return { status: 200, body: { ...this.#world.guildJson(guild), ...counts } };
  }

  channels(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    const channels = guild.channels.flatMap((channel) => {
      const record = this.#world.channels.get(channel.id);
      return record === undefined ? [] : [this.#world.channelJson(record)];
    });
    return { status: 200, body: channels };
  }

  channel(request: SimulatedRequest, channelId: string): SimulatedAnswer {
    const found = this.#world.access(request, channelId);
    return isAnswer(found) ? found : { status: 200, body: this.#world.channelJson(found) };
  }

  roles(request: SimulatedRequest, guildId: string): SimulatedAnswer {
    const guild = this.#world.guildAccess(request, guildId);
    if (isAnswer(guild)) return guild;
    return { status: 200, body: this.#world.roleJson(guild) };
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
    // The Guild Member object with every field Discord sends for a member without boosts or a timeout.
    const members = found.slice(0, limit).map((member) => ({
      user: this.#world.userJson(member),
      nick: member.nick ?? null,
      avatar: null,
      banner: null,
      roles: [],
      joined_at: '2024-01-01T00:00:00.000000+00:00',
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    }));
    return { status: 200, body: members };
  }
}
