import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * What a Discord channel holds: the server and the channel the operator's bot posts to. The bot
 * token is the operator's (one bot per SPS installation), so no user token is kept.
 */
const credential = z.object({ guildId: z.string().min(1), channelId: z.string().min(1) });

export type DiscordCredential = z.infer<typeof credential>;

export const { encode: encodeDiscordCredential, read: readDiscordCredential } = storedCredential(credential, {
  provider: 'discord', what: 'Discord credential', reconnect: 'connect the server again',
});
