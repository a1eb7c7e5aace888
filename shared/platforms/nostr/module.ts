import type { PlatformModule } from '../kit/platform-module.ts';
import { nostrConnect } from './connect.ts';
import { nostr } from './definition.ts';

export const nostrModule: PlatformModule = {
  definition: nostr,
  connect: nostrConnect,
};
