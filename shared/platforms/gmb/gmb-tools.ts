import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { readGmbCredential } from './credential.ts';
import { provider, type GmbApi } from './gmb-api.ts';
import { managedLocations } from './gmb-locations.ts';

/** The locations tool takes nothing; what it is sent is read here so a client's mistake is said. */
const locationsData = z.object({}).strict();

/**
 * `locations`: every Business Profile location the channel's Google account manages, as the
 * connect step's picker lists them, with the one the channel publishes to marked.
 */
export function gmbTools(apiFor: (channel: ChannelCredentials) => GmbApi): Record<string, ToolHandler> {
  return {
    async locations(channel, data) {
      const input = locationsData.safeParse(data);
      if (!input.success) {
        const message = `the locations tool takes no input: ${input.error.issues[0]?.message ?? ''}`;
        throw new PlatformError({ kind: 'permanent', provider, message });
      }
      const connected = readGmbCredential(channel.accessToken).location;
      const locations = await managedLocations(apiFor(channel));
      return locations.map((item) => ({ ...item, connected: item.location === connected }));
    },
  };
}
