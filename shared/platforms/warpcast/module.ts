import type { PlatformModule } from '../kit/platform-module.ts';
import { warpcastConnect } from './connect.ts';
import { warpcast } from './definition.ts';

export const warpcastModule: PlatformModule = {
  definition: warpcast,
  urls: { apiUrl: 'https://api.neynar.com' },
  connect: warpcastConnect,
};
