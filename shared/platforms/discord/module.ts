import type { PlatformModule } from '../kit/platform-module.ts';
import { createDiscordAdapter } from './adapter.ts';
import { discordConnect } from './connect.ts';
import { discord } from './definition.ts';

export const discordModule: PlatformModule = {
  definition: discord,
  urls: { apiUrl: 'https://discord.com/api', authUrl: 'https://discord.com', tokenUrl: 'https://discord.com/api' },
  requiredSettings: ['CLIENT_ID', 'CLIENT_SECRET', 'BOT_TOKEN'],
  connect: discordConnect,
  createAdapter: createDiscordAdapter,
  // DELETE /channels/:channel/messages/:message, or DELETE /channels/:thread for a forum post.
  removal: { supported: true, method: 'delete', note: 'a forum post is deleted as its thread (MANAGE_THREADS)' },
};
