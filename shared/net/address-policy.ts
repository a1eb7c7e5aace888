import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../errors.ts';

/**
 * Addresses SPS must never reach on a user's behalf: loopback, private, link-local, CGNAT,
 * multicast, documentation and reserved ranges (IANA special-purpose registries).
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['2001::', 23], ['fc00::', 7], ['fe80::', 10],
  ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

/** IPv6 forms that carry an IPv4 address inside: IPv4-mapped, IPv4-compatible and NAT64. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1] !== undefined) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return null;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== null) return !blocked.check(inner, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

export interface AddressPolicy {
  /** Development and tests only: lets SPS talk to simulators on loopback. */
  allowPrivateNetwork: boolean;
}

/**
 * Checks a platform origin a user gave us (a Mastodon instance, say): https, and every address
 * its name resolves to is public. Returns the normalised origin.
 */
export async function assertPublicOrigin(input: string, policy: AddressPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new DomainError('validation_failed', `"${input}" is not a valid URL`);
  }
  const allowedProtocols = policy.allowPrivateNetwork ? ['https:', 'http:'] : ['https:'];
  if (!allowedProtocols.includes(url.protocol)) {
    throw new DomainError('validation_failed', `${url.origin} must use https`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new DomainError('validation_failed', 'the URL must not carry a user name or password');
  }
  if (policy.allowPrivateNetwork) return url.origin;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true, order: 'verbatim' })).map((entry) => entry.address);
  } catch (error) {
    throw new DomainError('validation_failed', `${url.hostname} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`);
  }
  const forbidden = addresses.filter((address) => !isPublicAddress(address));
  if (addresses.length === 0 || forbidden.length > 0) {
    throw new DomainError('validation_failed', `${url.hostname} resolves to a non-public address (${forbidden.join(', ') || 'none'}); only public servers can be connected`);
  }
  return url.origin;
}
