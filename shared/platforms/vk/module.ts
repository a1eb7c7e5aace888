import type { PlatformModule } from '../kit/platform-module.ts';
import { vk } from './definition.ts';

export const vkModule: PlatformModule = {
  definition: vk,
};
