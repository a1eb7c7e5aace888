import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { FetchFailure } from '../../net/fetch-failure.ts';
import { checkPinnedTarget } from '../../net/pinned-request.ts';
import { PlatformError } from '../kit/platform-error.ts';

/** More relays than this is not a list someone keeps by hand, and each one costs a connection. */
const maxRelays = 20;

function refused(message: string, cause?: unknown): PlatformError {
  return new PlatformError({ kind: 'permanent', provider: 'nostr', message, cause });
}

/** One relay URL as typed, checked like any user-given address. */
function relayUrlOf(typed: string, policy: ConnectionPolicy): URL {
  let url: URL;
  try {
    url = new URL(typed);
  } catch (error) {
    throw refused(`${typed} is not a relay URL: relays look like wss://relay.example.com`, error);
  }
  const schemes = policy.allowHttp ? ['wss:', 'ws:'] : ['wss:'];
  if (!schemes.includes(url.protocol)) throw refused(`${typed} is not a relay URL: relays start with wss://`);
  const asHttp = new URL(url);
  asHttp.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
  try {
    checkPinnedTarget(asHttp, policy);
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    throw refused(`the relay ${typed} cannot be used: ${error.message}`, error);
  }
  return url;
}

/** The relays of a list (one per line, or separated by spaces or commas), each checked, without repeats. */
export function relayUrlsOf(typed: readonly string[], policy: ConnectionPolicy): URL[] {
  const urls = typed.map((line) => relayUrlOf(line, policy));
  const unique = [...new Map(urls.map((url) => [relayText(url), url])).values()];
  if (unique.length > maxRelays) throw refused(`name at most ${String(maxRelays)} relays`);
  return unique;
}

export function relayUrlsFrom(typed: string, policy: ConnectionPolicy): URL[] {
  const lines = typed.split(/[\s,]+/).filter((line) => line !== '');
  if (lines.length === 0) throw refused('name at least one relay, like wss://relay.damus.io');
  return relayUrlsOf(lines, policy);
}

/** The relay as stored and shown: without a trailing slash. */
export function relayText(url: URL): string {
  return url.pathname === '/' ? `${url.protocol}//${url.host}` : url.href;
}
