import { z } from 'zod';

/**
 * What a Discord channel holds: the server and the channel the operator's bot posts to. The bot
 * token is the operator's (one bot per SPS installation), so no user token is kept.
 */
const credential = z.object({ guildId: z.string().min(1), channelId: z.string().min(1) });

export type DiscordCredential = z.infer<typeof credential>;

export function encodeDiscordCredential(value: DiscordCredential): string {
  return JSON.stringify(value);
}

/** Reads back the credential a connected channel stores; throws on anything else. */
export function readDiscordCredential(accessToken: string): DiscordCredential {
  return credential.parse(JSON.parse(accessToken));
}
