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
};
