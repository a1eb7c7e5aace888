import type { PlatformModule } from '../kit/platform-module.ts';
import { vkConnect } from './connect.ts';
import { vk } from './definition.ts';

export const vkModule: PlatformModule = {
  definition: vk,
  // VK ID signs in and reads the profile at id.vk.com; publishing calls api.vk.com/method with its token.
  urls: { apiUrl: 'https://id.vk.com', authUrl: 'https://id.vk.com', tokenUrl: 'https://id.vk.com' },
  // VK ID apps are public clients with PKCE: the exchange sends no secret.
  requiredSettings: ['CLIENT_ID'],
  connect: vkConnect,
};
