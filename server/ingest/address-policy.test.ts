/** The crawler's default address policy, address by address: only public unicast passes. */
import { describe, expect, it } from 'vitest';
import { isIpLiteral, publicAddressesOnly } from './address-policy.ts';

describe('publicAddressesOnly', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.0.0.2', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address (cloud metadata)'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.100.100.200', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['192.0.2.1', 'a reserved address'],
    ['fe80::1', 'a link-local address'],
    ['fc00::1', 'a unique-local address'],
    ['fd00:ec2::254', 'a unique-local address'],
    // IPv4 inside IPv6: the kernel connects to the IPv4 address.
    ['::ffff:127.0.0.1', 'a loopback address (IPv4 127.0.0.1)'],
    ['[::ffff:7f00:1]', 'a loopback address (IPv4 127.0.0.1)'],
    ['::ffff:169.254.169.254', 'a link-local address (cloud metadata) (IPv4 169.254.169.254)'],
    ['::ffff:10.0.0.1', 'a private address (IPv4 10.0.0.1)'],
    ['2002:7f00:1::', 'a 6to4 address'],
    ['2001:0:4136:e378::1', 'a Teredo address'],
    ['64:ff9b::a00:1', 'a NAT64 address'],
    ['::7f00:1', 'outside the global unicast range 2000::/3'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s: %s', (address, phrase) => {
    expect(publicAddressesOnly(address)).toBe(phrase);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001:80b::200e'])(
    'allows the public address %s',
    (address) => {
      expect(publicAddressesOnly(address)).toBeNull();
    },
  );

  it('sees through the forms WHATWG URL normalises (decimal, hex, short)', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:127.0.0.1]/']) {
      const host = new URL(url).hostname;
      expect(isIpLiteral(host), url).toBe(true);
      expect(publicAddressesOnly(host), url).toMatch(/^a loopback address/);
    }
    expect(isIpLiteral('docs.example.com')).toBe(false);
  });
});
