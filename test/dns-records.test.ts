import { describe, expect, it } from '@jest/globals';
import { dnsRecordsFor, relativeName } from '../model/dns-records.ts';
import { normalizeHostname } from '../model/hostname.ts';

const edge = { cnameTarget: 'edge.hostgate.io', ipv4: ['203.0.113.10', '203.0.113.11'], ipv6: ['2001:DB8::10'] };

describe('dnsRecordsFor', () => {
  it('gives a subdomain one CNAME to the edge target', () => {
    expect(dnsRecordsFor({ hostname: 'shop.customer.com', isApex: false }, edge)).toEqual([
      { type: 'CNAME', name: 'shop.customer.com', value: 'edge.hostgate.io' },
    ]);
  });

  it('gives an apex one A per edge IPv4 and one AAAA per edge IPv6', () => {
    expect(dnsRecordsFor({ hostname: 'customer.co.uk', isApex: true }, edge)).toEqual([
      { type: 'A', name: 'customer.co.uk', value: '203.0.113.10' },
      { type: 'A', name: 'customer.co.uk', value: '203.0.113.11' },
      { type: 'AAAA', name: 'customer.co.uk', value: '2001:db8::10' },
    ]);
  });

  it('gives an apex A records only when no IPv6 is configured', () => {
    expect(dnsRecordsFor({ hostname: 'customer.com', isApex: true }, { ...edge, ipv6: [] })).toEqual([
      { type: 'A', name: 'customer.com', value: '203.0.113.10' },
      { type: 'A', name: 'customer.com', value: '203.0.113.11' },
    ]);
  });

  it('drops duplicate and blank edge addresses and a trailing dot on the target', () => {
    expect(dnsRecordsFor({ hostname: 'customer.com', isApex: true }, { cnameTarget: 'x', ipv4: ['203.0.113.10', ' 203.0.113.10 ', ''], ipv6: [] }))
      .toEqual([{ type: 'A', name: 'customer.com', value: '203.0.113.10' }]);
    expect(dnsRecordsFor({ hostname: 'a.customer.com', isApex: false }, { ...edge, cnameTarget: 'Edge.Hostgate.io.' }))
      .toEqual([{ type: 'CNAME', name: 'a.customer.com', value: 'edge.hostgate.io' }]);
  });

  it('follows normalizeHostname: private PSL names are apexes', () => {
    const result = normalizeHostname('foo.github.io', { serviceDomain: 'hostgate.io' });
    if (!result.ok) throw new Error(result.message);
    expect(dnsRecordsFor(result, edge).map((r) => r.type)).toEqual(['A', 'A', 'AAAA']);
  });
});

describe('relativeName', () => {
  it.each([
    ['customer.com', 'customer.com', '@'],
    ['shop.customer.com', 'customer.com', 'shop'],
    ['a.b.customer.co.uk', 'customer.co.uk', 'a.b'],
    ['Shop.Customer.com.', 'customer.com', 'shop'],
    ['www.foo.github.io', 'foo.github.io', 'www'],
  ])('%s in %s → %s', (hostname, zone, expected) => {
    expect(relativeName(hostname, zone)).toBe(expected);
  });

  it('throws when the hostname is not in the zone', () => {
    expect(() => relativeName('shop.other.com', 'customer.com')).toThrow(/not within/);
    expect(() => relativeName('notcustomer.com', 'customer.com')).toThrow(/not within/);
  });
});
