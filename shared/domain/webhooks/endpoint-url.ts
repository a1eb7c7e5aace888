import { isIP } from 'node:net';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { DomainError } from '../../errors.ts';

/** Long enough for any real receiver; every delivery carries it, so it stays bounded. */
export const maxEndpointUrlLength = 2048;

function refused(message: string): DomainError {
  return new DomainError('validation_failed', message, [{ path: 'url', message }]);
}

/** Names that resolve to the machine itself by definition (RFC 6761), whatever DNS says. */
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What can be refused when an endpoint is registered, before any DNS: the scheme, credentials,
 * a fragment, and an address (or localhost) the deployment may not call. Names are checked again
 * at every delivery, on the address actually connected to (shared/net/pinned-lookup.ts), since
 * DNS can change after registration.
 */
export function checkedEndpointUrl(input: string, policy: ConnectionPolicy): string {
  const text = input.trim();
  if (text.length > maxEndpointUrlLength) throw refused(`the URL must be at most ${maxEndpointUrlLength} characters`);
  const url = URL.parse(text);
  if (url === null) throw refused('the URL must be an absolute URL, e.g. https://example.com/sps-webhooks');
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw refused(policy.allowHttp ? 'the URL must use https or http' : 'the URL must use https');
  }
  if (url.username !== '' || url.password !== '') {
    throw refused('the URL must not carry a user name or password; check the signature instead');
  }
  if (url.hash !== '') throw refused('the URL must not contain a fragment (#...), which is never sent');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  const addressRefused = isIP(literal) !== 0 && !policy.isAllowedAddress(literal);
  // A deployment that may reach private addresses may reach localhost; one that may not, may not.
  const loopbackRefused = isIP(literal) === 0 && isLoopbackName(literal) && !policy.isAllowedAddress('127.0.0.1');
  if (addressRefused || loopbackRefused) {
    throw refused(`${url.hostname} is a private or local address, which webhooks may not be sent to`);
  }
  return url.toString();
}
