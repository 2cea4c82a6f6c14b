// The test DNS server answers a real node:dns Resolver the way public DNS would.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Resolver } from 'node:dns/promises';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';

describe('test DNS server', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  beforeAll(async () => {
    dns = await startTestDnsServer();
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.server]);
  });
  afterAll(async () => { await dns.close(); });

  it('answers A, AAAA, CNAME chains, CAA, NODATA and NXDOMAIN', async () => {
    dns.set('edge.hostgate.test', [{ type: 'A', value: '127.0.0.1' }]);
    dns.set('shop.customer.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    dns.set('customer.test', [{ type: 'CAA', tag: 'issue', value: 'letsencrypt.org' }, { type: 'AAAA', value: '2001:db8::1' }]);
    expect(await resolver.resolveCname('shop.customer.test')).toEqual(['edge.hostgate.test']);
    expect(await resolver.resolve4('edge.hostgate.test')).toEqual(['127.0.0.1']);
    expect(await resolver.resolve6('customer.test')).toEqual(['2001:db8::1']);
    expect(await resolver.resolveCaa('customer.test')).toEqual([expect.objectContaining({ critical: 0, issue: 'letsencrypt.org' })]);
    await expect(resolver.resolve4('customer.test')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolve4('missing.customer.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
