import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of a valid IPv6 address ("::" expanded, a dotted IPv4 tail split in two). */
function hextets(address: string): number[] {
  const groups = (part: string): number[] => part === '' ? [] : part.split(':').flatMap((group) => {
    if (!group.includes('.')) return [Number.parseInt(group, 16)];
    const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  });
  const [head = '', tail] = address.split('::');
  if (tail === undefined) return groups(head);
  const left = groups(head);
  const right = groups(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * What throttles count a client under. IPv4: the address. IPv6: its /64, since one subscriber
 * usually holds a whole /64 and could otherwise take a fresh address for every attempt; an
 * IPv4-mapped IPv6 address counts as the IPv4 client it stands for. Anything else (a proxy that
 * wrote something odd) is keyed as written, cut to a bounded length.
 */
export function clientAddressKey(address: string): string {
  const bare = address.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*/, '');
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return bare.slice(0, 100);
  const groups = hextets(bare.toLowerCase());
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
