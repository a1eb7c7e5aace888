import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { ConnectionPolicy } from './connection-policy.ts';
import { FetchFailure } from './fetch-failure.ts';

async function systemResolve(hostname: string): Promise<string[]> {
  const entries = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return entries.map((entry) => entry.address);
}

/**
 * A lookup for the socket that resolves the name, checks every address, and connects to the
 * address it checked: the check and the connection cannot see different DNS answers, so a
 * name that turns private after it was checked once (DNS rebinding) is refused at connect time.
 */
export function pinnedLookup(policy: ConnectionPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then((addresses) => {
      const blocked = addresses.filter((address) => !policy.isAllowedAddress(address));
      if (addresses.length === 0) throw new FetchFailure('network', `${hostname} has no address`);
      if (blocked.length > 0) {
        // Whoever named the host reads the message (a media's error, a form's refusal): the
        // addresses would map the internal network for them, so they stay in the cause, which
        // only the logs show.
        const detail = new Error(`${hostname} resolved to ${addresses.join(', ')}; refused ${blocked.join(', ')}`);
        const message = `${hostname} resolves to a private network address`;
        throw new FetchFailure('blocked_address', message, { cause: detail });
      }
      const chosen = addresses[0] ?? '';
      const family = isIP(chosen);
      if (lookupOptions.all === true) callback(null, [{ address: chosen, family }]);
      else callback(null, chosen, family);
    }).catch((error: unknown) => {
      callback(error instanceof Error ? error : new Error(String(error)), '', 0);
    });
  };
}
