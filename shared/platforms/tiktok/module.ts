import type { PlatformModule } from '../kit/platform-module.ts';
import { tiktok } from './definition.ts';

export const tiktokModule: PlatformModule = {
  definition: tiktok,
};
