import type { PlatformModule } from '../kit/platform-module.ts';
import { createTelegramAdapter } from './adapter.ts';
import { telegramConnect } from './connect.ts';
import { telegram } from './definition.ts';

export const telegramModule: PlatformModule = {
  definition: telegram,
  // The Bot API host (TELEGRAM_API_URL); a self-hosted Bot API server takes larger uploads.
  urls: { apiUrl: 'https://api.telegram.org' },
  connect: telegramConnect,
  createAdapter: createTelegramAdapter,
  // deleteMessage: the bot's own message, within 48 hours in a group, at any time in a channel it posts to.
  removal: { supported: true, method: 'delete', note: 'in groups only within 48 hours of sending' },
};
