import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../errors.ts';

/**
 * Addresses SPS must never reach on a user's behalf: loopback, private, link-local, CGNAT,
 * multicast, documentation and reserved ranges (IANA special-purpose registries).
 */
const blockedV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blockedV4.addSubnet(network, prefix, 'ipv4');

/**
 * IPv6 ranges refused outright. `::/96` holds `::`, `::1` and the deprecated IPv4-compatible
 * `::a.b.c.d` (no public server has one); `64:ff9b:1::/48` is local-use NAT64, whose operator
 * picks where the IPv4 sits, so it cannot be read out; `2001::/23` covers Teredo; `5f00::/16`
 * is SRv6 and `3fff::/20` documentation. Ranges that embed an IPv4 address at a known place are
 * judged by that address instead (see `embeddedIpv4`).
 */
const blockedV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['3fff::', 20], ['5f00::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blockedV6.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address in any spelling (`::`, a dotted tail, a zone). */
function ipv6Groups(address: string): number[] | null {
  const withoutZone = address.split('%')[0] ?? '';
  let text = withoutZone.toLowerCase();
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1] ?? ''}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string | undefined): number[] => (
    half === undefined || half === '' ? [] : half.split(':').map((group) => parseInt(group, 16))
  );
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

const dottedQuad = (high: number, low: number): string => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 address stands for, where the range says exactly where it sits:
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, well-known NAT64
 * `64:ff9b::/96` (all in the last 32 bits) and 6to4 `2002::/16` (bits 16 to 48). A 6to4
 * address is judged by its IPv4 address: a 6to4 relay would carry the packet to it.
 */
export function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  if (groups === null) return null;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroUpTo(5) && g5 === 0xffff) return dottedQuad(g6, g7);
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return dottedQuad(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dottedQuad(g6, g7);
  if (g0 === 0x2002) return dottedQuad(g1, g2);
  return null;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blockedV4.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== null) return !blockedV4.check(inner, 'ipv4');
    const groups = ipv6Groups(address);
    if (groups === null) return false;
    // BlockList is given the canonical spelling, so no form of an address can slip past it.
    const canonical = groups.map((group) => group.toString(16)).join(':');
    return !blockedV6.check(canonical, 'ipv6');
  }
  return false;
}

export interface AddressPolicy {
  /** Development and tests only: lets SPS talk to simulators on loopback. */
  allowPrivateNetwork: boolean;
}

/**
 * Checks a platform origin a user gave us (a Mastodon instance, say): https, and every address
 * its name resolves to is public. Returns the normalised origin. Every later call to the origin
 * is checked again at connect time (shared/net/pinned-request.ts): DNS may change after this.
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
