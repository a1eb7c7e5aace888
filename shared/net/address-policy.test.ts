import { describe, expect, it } from 'vitest';
import { assertPublicOrigin, isPublicAddress } from './address-policy.ts';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '64:ff9b::a9fe:a9fe', '2001:db8::1',
  ])('blocks %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('treats a non-address as not public', () => {
    expect(isPublicAddress('example.com')).toBe(false);
  });
});

describe('assertPublicOrigin', () => {
  const strict = { allowPrivateNetwork: false };

  it('refuses loopback names and literals when private networks are not allowed', async () => {
    await expect(assertPublicOrigin('https://localhost:8443', strict)).rejects.toThrow(/non-public address/);
    await expect(assertPublicOrigin('https://127.0.0.1', strict)).rejects.toThrow(/non-public address/);
    await expect(assertPublicOrigin('https://[::ffff:127.0.0.1]', strict)).rejects.toThrow(/non-public address/);
  });

  it('requires https and no embedded credentials', async () => {
    await expect(assertPublicOrigin('http://1.1.1.1', strict)).rejects.toThrow(/https/);
    await expect(assertPublicOrigin('https://user:pw@1.1.1.1', strict)).rejects.toThrow(/user name or password/);
    await expect(assertPublicOrigin('not a url', strict)).rejects.toThrow(/not a valid URL/);
  });

  it('accepts a public literal and returns the origin', async () => {
    await expect(assertPublicOrigin('https://1.1.1.1/some/path', strict)).resolves.toBe('https://1.1.1.1');
  });

  it('lets development and tests reach loopback when allowed', async () => {
    await expect(assertPublicOrigin('http://127.0.0.1:3000/', { allowPrivateNetwork: true })).resolves.toBe('http://127.0.0.1:3000');
  });
});
