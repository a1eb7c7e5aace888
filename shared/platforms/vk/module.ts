import type { PlatformModule } from '../kit/platform-module.ts';
import { vkConnect } from './connect.ts';
import { vk } from './definition.ts';

export const vkModule: PlatformModule = {
  definition: vk,
  urls: { apiUrl: 'https://api.vk.com', authUrl: 'https://oauth.vk.com', tokenUrl: 'https://oauth.vk.com' },
  connect: vkConnect,
};
