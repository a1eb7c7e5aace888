import type { PlatformModule } from '../kit/platform-module.ts';
import { googleUrls } from '../youtube/google-oauth.ts';
import { gmbApiUrl, gmbConnect } from './connect.ts';
import { gmb } from './definition.ts';

export const gmbModule: PlatformModule = {
  definition: gmb,
  urls: { apiUrl: gmbApiUrl, ...googleUrls },
  connect: gmbConnect,
};
