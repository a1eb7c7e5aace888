import type { PlatformModule } from '../kit/platform-module.ts';
import { createNostrAdapter } from './adapter.ts';
import { nostrConnect } from './connect.ts';
import { nostr } from './definition.ts';

export const nostrModule: PlatformModule = {
  definition: nostr,
  connect: nostrConnect,
  createAdapter: createNostrAdapter,
};
