import { readPlatformApp, type PlatformUrls } from '../kit/platform-app.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { createWarpcastAdapter } from './adapter.ts';
import { warpcastConnect } from './connect.ts';
import { warpcast } from './definition.ts';

const urls: PlatformUrls = { apiUrl: 'https://api.neynar.com' };

export const warpcastModule: PlatformModule = {
  definition: warpcast,
  urls,
  connect: warpcastConnect,
  // AdapterOptions carries no platform app, so the room reads WARPCAST_API_URL the way
  // PlatformApps does (start-up, the same variable and default), to cast where it connects.
  createAdapter: (options) => createWarpcastAdapter(options, readPlatformApp('warpcast', urls, process.env)),
};
