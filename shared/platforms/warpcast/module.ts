import type { PlatformModule } from '../kit/platform-module.ts';
import { warpcast } from './definition.ts';

export const warpcastModule: PlatformModule = {
  definition: warpcast,
};
