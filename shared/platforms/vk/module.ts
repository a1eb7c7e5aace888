import type { PlatformModule } from '../kit/platform-module.ts';
import { createVkAdapter } from './adapter.ts';
import { vkConnect } from './connect.ts';
import { vk } from './definition.ts';

export const vkModule: PlatformModule = {
  definition: vk,
  // Publishing calls api.vk.com/method (VK_API_URL); VK ID signs in and reads the profile at id.vk.com.
  urls: { apiUrl: 'https://api.vk.com', authUrl: 'https://id.vk.com', tokenUrl: 'https://id.vk.com' },
  // VK ID apps are public clients with PKCE: the exchange sends no secret.
  requiredSettings: ['CLIENT_ID'],
  connect: vkConnect,
  createAdapter: createVkAdapter,
  // wall.delete and wall.deleteComment: the post or comment leaves the wall.
  removal: { supported: true, method: 'delete' },
};
