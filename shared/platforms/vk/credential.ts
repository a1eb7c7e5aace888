import { z } from 'zod';
import { storedCredential } from '../kit/stored-credential.ts';

/**
 * What a VK channel keeps as its refresh token: VK ID's refresh token and the `device_id` its
 * redirect named, since every refresh must send that device id again and only the stored
 * refresh token reaches the refresh step. The access token stays VK's bare token.
 */
const refreshCredential = z.object({ refreshToken: z.string().min(1), deviceId: z.string().min(1) });

export type VkRefreshCredential = z.infer<typeof refreshCredential>;

export const { encode: encodeVkRefreshCredential, read: readVkRefreshCredential } = storedCredential(
  refreshCredential,
  { provider: 'vk', what: 'VK ID refresh token', reconnect: 'connect the VK channel again' },
);
