import type { PlatformUrls } from '../kit/platform-app.ts';
import type { PlatformModule } from '../kit/platform-module.ts';
import { createWarpcastAdapter } from './adapter.ts';
import { warpcastConnect } from './connect.ts';
import { warpcast } from './definition.ts';

const urls: PlatformUrls = { apiUrl: 'https://api.neynar.com' };

export const warpcastModule: PlatformModule = {
  definition: warpcast,
  urls,
  connect: warpcastConnect,
  createAdapter: createWarpcastAdapter,
  // Neynar's DELETE /v2/farcaster/cast: the cast's removal, signed by the approved signer.
  removal: { supported: true, method: 'delete' },
};
