import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './client-address-key.ts';

describe('clientAddressKey: what throttles count a client under', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    [' 198.51.100.7 ', '198.51.100.7'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['[2001:DB8:1:2::1]', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });

  it('puts every address of one IPv6 /64 together, and a neighbouring /64 apart', () => {
    expect(clientAddressKey('2001:db8:1:2::1')).toBe(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientAddressKey('2001:db8:1:2::1')).not.toBe(clientAddressKey('2001:db8:1:3::1'));
  });

  it('keeps anything that is not an address as written, bounded', () => {
    expect(clientAddressKey('unknown')).toBe('unknown');
    expect(clientAddressKey('x'.repeat(500))).toHaveLength(100);
  });
});
