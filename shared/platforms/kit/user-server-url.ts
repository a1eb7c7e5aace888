import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { PlatformError } from './platform-error.ts';

/**
 * A server address the user typed (a Mastodon instance, a WordPress site...), normalized: https
 * (http only where the policy allows it, in development), no credentials, no query; a path is
 * kept for servers that live under one (WordPress in a folder) but not its trailing slash.
 * Whether its addresses may be reached is checked on every connection (platformRequest's
 * `userHost`), not here, so a name that changes address later is still refused.
 */
export function userServerUrl(input: string, policy: ConnectionPolicy, options: { keepPath?: boolean } = {}): string {
  const provider = 'server';
  let url: URL;
  try {
    url = new URL(input.trim().includes('://') ? input.trim() : `https://${input.trim()}`);
  } catch {
    throw new PlatformError({ kind: 'permanent', provider, message: `"${input}" is not a server address` });
  }
  const protocols = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!protocols.includes(url.protocol)) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${url.origin} must use https` });
  }
  if (url.username !== '' || url.password !== '') {
    throw new PlatformError({ kind: 'permanent', provider, message: 'the address must not carry a user name or password' });
  }
  const path = options.keepPath === true ? url.pathname.replace(/\/+$/, '') : '';
  return `${url.origin}${path}`;
}
