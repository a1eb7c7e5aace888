import type { PlatformModule } from '../kit/platform-module.ts';
import { createNostrAdapter } from './adapter.ts';
import { nostrConnect } from './connect.ts';
import { nostr } from './definition.ts';

export const nostrModule: PlatformModule = {
  definition: nostr,
  connect: nostrConnect,
  createAdapter: createNostrAdapter,
  removal: {
    supported: true, method: 'delete',
    note: 'a NIP-09 deletion request to the channel\'s relays: those that honour it drop the note; '
      + 'relays that copied it on their own may keep it',
  },
};
