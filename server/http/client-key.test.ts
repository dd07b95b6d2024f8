/** The key a per-client limit counts: IPv4 by address, IPv6 by its /64, IPv4-mapped IPv6 as IPv4. */
import { describe, expect, it } from 'vitest';
import { clientKey, UNKNOWN_CLIENT } from './client-key.ts';

describe('clientKey', () => {
  it('is the address for IPv4, and an IPv4-mapped IPv6 address is that IPv4 address', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:c000:201')).toBe('192.0.2.1');
    expect(clientKey('192.0.2.2')).not.toBe(clientKey('192.0.2.1'));
  });

  it('is the /64 for IPv6: every address of one /64 is one client, the next /64 another', () => {
    const one = [
      '2001:db8:1:2::1',
      '2001:db8:1:2::2',
      '2001:DB8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:abcd::9',
    ];
    expect(new Set(one.map(clientKey))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80::/64');
  });

  it('still gives a bounded key for what is not an address, and one shared key for none', () => {
    expect(clientKey(null)).toBe(UNKNOWN_CLIENT);
    expect(clientKey('')).toBe(UNKNOWN_CLIENT);
    expect(clientKey('x'.repeat(500)).length).toBeLessThanOrEqual(70);
  });
});
