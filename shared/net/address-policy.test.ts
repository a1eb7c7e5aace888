import { describe, expect, it } from 'vitest';
import { assertPublicOrigin, embeddedIpv4, isPublicAddress } from './address-policy.ts';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12::1', 'ff02::1',
    '2001:db8::1',
  ])('blocks %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  // Every spelling of every IPv6 form that carries (or may carry) an IPv4 address inside.
  it.each([
    ['IPv4-compatible, dotted', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::7f00:1'],
    ['IPv4-compatible, upper-case hex', '::7F00:1'],
    ['IPv4-compatible, written out', '0:0:0:0:0:0:7f00:1'],
    ['IPv4-compatible, zero-padded', '0000:0000:0000:0000:0000:0000:7f00:0001'],
    ['IPv4-compatible, partly compressed', '0::0:127.0.0.1'],
    ['IPv4-compatible, private', '::10.0.0.1'],
    ['IPv4-compatible, metadata service in hex', '::a9fe:a9fe'],
    ['IPv4-compatible, even a public IPv4 (the whole deprecated range is refused)', '::8.8.8.8'],
    ['IPv4-mapped, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:7f00:1'],
    ['IPv4-mapped, upper case', '::FFFF:7F00:1'],
    ['IPv4-mapped, written out', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped, private', '::ffff:10.0.0.1'],
    ['IPv4-mapped, unspecified', '::ffff:0:0'],
    ['IPv4-translated, dotted', '::ffff:0:127.0.0.1'],
    ['IPv4-translated, hex', '::ffff:0:7f00:1'],
    ['IPv4-translated, written out', '0:0:0:0:ffff:0:a00:1'],
    ['IPv4-translated, metadata service', '::ffff:0:169.254.169.254'],
    ['NAT64 well-known, dotted', '64:ff9b::127.0.0.1'],
    ['NAT64 well-known, hex', '64:ff9b::7f00:1'],
    ['NAT64 well-known, written out', '64:ff9b:0:0:0:0:a9fe:a9fe'],
    ['NAT64 local-use', '64:ff9b:1::1'],
    ['NAT64 local-use, with a public IPv4 at /96 (the whole range is refused)', '64:ff9b:1::808:808'],
    ['NAT64 local-use, top of the range', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['6to4 of loopback, zero-padded', '2002:7f00:0001:0:0:0:0:1'],
    ['6to4 of a private address', '2002:a00:1::1'],
    ['6to4 of 192.168.1.1', '2002:c0a8:101:abcd::1'],
    ['6to4 of the metadata service', '2002:a9fe:a9fe::'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['documentation 3fff::/20', '3fff::1'],
    ['SRv6 5f00::/16', '5f00::1'],
  ])('blocks %s: %s', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '1.1.1.1', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8', '::ffff:808:808', '::ffff:0:8.8.8.8', '64:ff9b::8.8.8.8', '64:ff9b::808:808',
    '2002:808:808::1', '2002:0808:0808:1::1',
  ])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('reads the IPv4 address out of the forms that place it exactly', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:0:a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::c0a8:101')).toBe('192.168.1.1');
    expect(embeddedIpv4('2002:c0a8:101::1')).toBe('192.168.1.1');
    expect(embeddedIpv4('2606:4700:4700::1111')).toBeNull();
  });

  it('treats a non-address as not public', () => {
    expect(isPublicAddress('example.com')).toBe(false);
    expect(isPublicAddress('[::1]')).toBe(false);
  });
});

describe('assertPublicOrigin', () => {
  const strict = { allowPrivateNetwork: false };

  it('refuses loopback names and literals when private networks are not allowed', async () => {
    await expect(assertPublicOrigin('https://localhost:8443', strict)).rejects.toThrow(/non-public address/);
    await expect(assertPublicOrigin('https://127.0.0.1', strict)).rejects.toThrow(/non-public address/);
    await expect(assertPublicOrigin('https://[::ffff:127.0.0.1]', strict)).rejects.toThrow(/non-public address/);
  });

  const hiddenLoopback = [
    'https://[::7f00:1]', 'https://[::ffff:0:7f00:1]', 'https://[64:ff9b:1::a00:1]', 'https://[2002:7f00:1::]',
  ];
  it.each(hiddenLoopback)('refuses the literal %s', async (origin) => {
    await expect(assertPublicOrigin(origin, strict)).rejects.toThrow(/non-public address/);
  });

  it('requires https and no embedded credentials', async () => {
    await expect(assertPublicOrigin('http://1.1.1.1', strict)).rejects.toThrow(/https/);
    await expect(assertPublicOrigin('https://user:pw@1.1.1.1', strict)).rejects.toThrow(/user name or password/);
    await expect(assertPublicOrigin('not a url', strict)).rejects.toThrow(/not a valid URL/);
  });

  it('accepts a public literal and returns the origin', async () => {
    await expect(assertPublicOrigin('https://1.1.1.1/some/path', strict)).resolves.toBe('https://1.1.1.1');
    await expect(assertPublicOrigin('https://[2002:808:808::1]/', strict)).resolves.toBe('https://[2002:808:808::1]');
  });

  it('lets development and tests reach loopback when allowed', async () => {
    await expect(assertPublicOrigin('http://127.0.0.1:3000/', { allowPrivateNetwork: true })).resolves.toBe('http://127.0.0.1:3000');
  });
});
