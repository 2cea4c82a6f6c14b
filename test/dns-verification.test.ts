// The DNS verdict from what a check found: one row per situation a customer can be in.
import { describe, expect, it } from '@jest/globals';
import {
  detectCdn, evaluateDnsVerification, isRetryableProblem,
  type AddressLookup, type CaaFinding, type DnsObservation, type DnsProblemCode,
} from '../model/dns-verification.ts';

const edge = { cnameTarget: 'edge.hostgate.test', ipv4: ['203.0.113.10'], ipv6: [] as string[] };
const edgeV6 = { cnameTarget: 'edge.hostgate.test', ipv4: ['203.0.113.10'], ipv6: ['2001:db8::10'] };
const caaIdentities = ['letsencrypt.org'];

const found = (...values: string[]): AddressLookup => ({ status: 'found', values });
const nodata: AddressLookup = { status: 'nodata', values: [] };
const nx: AddressLookup = { status: 'nxdomain', values: [] };
const err: AddressLookup = { status: 'error', values: [] };
const noCaa: CaaFinding = { status: 'none' };
const caa = (name: string, ...records: [string, string, number?][]): CaaFinding =>
  ({ status: 'found', name, records: records.map(([tag, value, flags]) => ({ tag, value, flags: flags ?? 0 })) });

function obs(partial: Partial<DnsObservation>): DnsObservation {
  return { cnameChain: [], chainEnd: 'end', a: nodata, aaaa: nodata, caa: noCaa, ...partial };
}

type Case = [string, { hostname?: string; isApex?: boolean; edge?: typeof edge; observed: DnsObservation }, DnsProblemCode | null];

const cases: Case[] = [
  // Subdomains
  ['CNAME straight to our target', { observed: obs({ cnameChain: ['edge.hostgate.test'], a: found('203.0.113.10') }) }, null],
  ['CNAME to our target with a trailing dot and capitals', { observed: obs({ cnameChain: ['Edge.Hostgate.Test.'], a: found('198.51.100.1') }) }, null],
  ['CNAME via the customer\'s own alias to our target', { observed: obs({ cnameChain: ['alias.customer.com', 'edge.hostgate.test'] }) }, null],
  ['CNAME to our target, target lookups failing: still ours', { observed: obs({ cnameChain: ['edge.hostgate.test'], a: err, aaaa: err }) }, null],
  ['A records to our edge, no CNAME (flattening)', { observed: obs({ a: found('203.0.113.10') }) }, null],
  ['CNAME to another name that has our edge address', { observed: obs({ cnameChain: ['customer.com'], a: found('203.0.113.10') }) }, null],
  ['name does not exist', { observed: obs({ chainEnd: 'nxdomain', a: nx, aaaa: nx }) }, 'nxdomain'],
  ['name exists without records', { observed: obs({}) }, 'no_records'],
  ['CNAME to an old host', { observed: obs({ cnameChain: ['old-host.example.net'], a: found('192.0.2.1') }) }, 'wrong_target'],
  ['CNAME to a name that does not exist', { observed: obs({ cnameChain: ['typo.hostgate.tst'], chainEnd: 'nxdomain', a: nx, aaaa: nx }) }, 'wrong_target'],
  ['A record elsewhere', { observed: obs({ a: found('192.0.2.1') }) }, 'wrong_target'],
  ['CNAME loop', { observed: obs({ cnameChain: ['b.customer.com', 'shop.customer.com'], chainEnd: 'loop' }) }, 'wrong_target'],
  ['CNAME chain too long', { observed: obs({ cnameChain: ['1.x', '2.x', '3.x', '4.x', '5.x', '6.x', '7.x', '8.x'], chainEnd: 'too_long' }) }, 'wrong_target'],
  ['our A plus a foreign A', { observed: obs({ a: found('203.0.113.10', '192.0.2.1') }) }, 'conflicting_records'],
  ['our A plus a foreign AAAA (we have only IPv4)', { observed: obs({ a: found('203.0.113.10'), aaaa: found('2001:db8::99') }) }, 'conflicting_records'],
  ['CNAME into Cloudflare', { observed: obs({ cnameChain: ['shop.customer.com.cdn.cloudflare.net'], a: found('104.16.1.1') }) }, 'proxied_by_cdn'],
  ['Cloudflare proxy hides the CNAME (orange cloud)', { observed: obs({ a: found('172.67.1.2', '104.21.3.4'), aaaa: found('2606:4700:3030::1') }) }, 'proxied_by_cdn'],
  ['CNAME into Fastly', { observed: obs({ cnameChain: ['customer.map.fastly.net'], a: found('151.101.1.1') }) }, 'proxied_by_cdn'],
  ['CNAME into CloudFront', { observed: obs({ cnameChain: ['d111111abcdef8.cloudfront.net'], a: found('192.0.2.5') }) }, 'proxied_by_cdn'],
  ['CNAME into Akamai', { observed: obs({ cnameChain: ['shop.customer.com.edgekey.net', 'e1234.a.akamaiedge.net'], a: found('192.0.2.6') }) }, 'proxied_by_cdn'],
  ['CNAME lookup SERVFAIL', { observed: obs({ chainEnd: 'error', a: err, aaaa: err }) }, 'lookup_failed'],
  ['AAAA lookup timed out', { observed: obs({ a: found('203.0.113.10'), aaaa: err }) }, 'lookup_failed'],
  // Apex
  ['apex with our A', { isApex: true, hostname: 'customer.com', observed: obs({ a: found('203.0.113.10') }) }, null],
  ['apex with our A and AAAA', { isApex: true, hostname: 'customer.com', edge: edgeV6, observed: obs({ a: found('203.0.113.10'), aaaa: found('2001:DB8:0:0::10') }) }, null],
  ['apex with A elsewhere', { isApex: true, hostname: 'customer.com', observed: obs({ a: found('192.0.2.1') }) }, 'wrong_target'],
  ['apex with an extra AAAA', { isApex: true, hostname: 'customer.com', observed: obs({ a: found('203.0.113.10'), aaaa: found('2001:db8::1') }) }, 'conflicting_records'],
  ['apex with an extra A', { isApex: true, hostname: 'customer.com', observed: obs({ a: found('203.0.113.10', '192.0.2.1') }) }, 'conflicting_records'],
  ['apex with a CNAME', { isApex: true, hostname: 'customer.com', observed: obs({ cnameChain: ['edge.hostgate.test'], a: found('203.0.113.10') }) }, 'conflicting_records'],
  ['apex without records', { isApex: true, hostname: 'customer.com', observed: obs({}) }, 'no_records'],
  ['apex that does not exist', { isApex: true, hostname: 'customer.com', observed: obs({ chainEnd: 'nxdomain', a: nx, aaaa: nx }) }, 'nxdomain'],
  ['apex proxied by Cloudflare', { isApex: true, hostname: 'customer.com', observed: obs({ a: found('104.16.5.5') }) }, 'proxied_by_cdn'],
  // CAA
  ['CAA for our CA', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', 'letsencrypt.org']) }) }, null],
  ['CAA for our CA among others, with parameters', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', 'digicert.com'], ['issue', 'LetsEncrypt.org; validationmethods=http-01']) }) }, null],
  ['CAA naming only another CA', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', 'digicert.com']) }) }, 'caa_forbids_ca'],
  ['CAA forbidding every CA', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', ';']) }) }, 'caa_forbids_ca'],
  ['CAA with only issuewild (does not apply to non-wildcard names)', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issuewild', 'digicert.com']) }) }, null],
  ['CAA with only iodef', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['iodef', 'mailto:sec@customer.com']) }) }, null],
  ['CAA with an unknown critical tag', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', 'letsencrypt.org'], ['future', 'x', 128]) }) }, 'caa_forbids_ca'],
  ['CAA lookup failed', { observed: obs({ cnameChain: ['edge.hostgate.test'], caa: { status: 'error', name: 'shop.customer.com' } }) }, 'lookup_failed'],
  ['wrong target wins over a CAA problem', { observed: obs({ cnameChain: ['old.example.net'], a: found('192.0.2.1'), caa: caa('customer.com', ['issue', 'digicert.com']) }) }, 'wrong_target'],
];

describe('evaluateDnsVerification', () => {
  it.each(cases)('%s', (_label, c, code) => {
    const result = evaluateDnsVerification({
      hostname: c.hostname ?? 'shop.customer.com', isApex: c.isApex ?? false, edge: c.edge ?? edge, caaIdentities, observed: c.observed,
    });
    expect(result.problem?.code ?? null).toBe(code);
    expect(result.ok).toBe(code === null);
    if (result.problem) expect(result.problem.message).toMatch(/\.$/);
  });

  it('shows what was found and what is expected, and tells the customer what to change', () => {
    const result = evaluateDnsVerification({
      hostname: 'shop.customer.com', isApex: false, edge, caaIdentities,
      observed: obs({ cnameChain: ['old-host.example.net'], a: found('192.0.2.1') }),
    });
    expect(result.expected).toEqual([{ type: 'CNAME', name: 'shop.customer.com', value: 'edge.hostgate.test' }]);
    expect(result.found).toEqual([
      { type: 'CNAME', name: 'shop.customer.com', value: 'old-host.example.net' },
      { type: 'A', name: 'old-host.example.net', value: '192.0.2.1' },
    ]);
    expect(result.problem?.message).toBe('shop.customer.com points to old-host.example.net. Change its CNAME record to edge.hostgate.test.');
  });

  it('stops the found records at our target', () => {
    const result = evaluateDnsVerification({
      hostname: 'shop.customer.com', isApex: false, edge, caaIdentities,
      observed: obs({ cnameChain: ['edge.hostgate.test', 'lb.hostgate.test'], a: found('203.0.113.10') }),
    });
    expect(result).toEqual({ ok: true, problem: null, expected: result.expected, found: [{ type: 'CNAME', name: 'shop.customer.com', value: 'edge.hostgate.test' }] });
  });

  it('names the Cloudflare proxy switch', () => {
    const result = evaluateDnsVerification({ hostname: 'shop.customer.com', isApex: false, edge, caaIdentities, observed: obs({ a: found('104.16.0.1') }) });
    expect(result.problem?.message).toMatch(/turn off the Cloudflare proxy \(orange cloud\) for this record/);
  });

  it('names the extra AAAA record to delete at the apex', () => {
    const result = evaluateDnsVerification({ hostname: 'customer.com', isApex: true, edge, caaIdentities, observed: obs({ a: found('203.0.113.10'), aaaa: found('2001:db8::1') }) });
    expect(result.problem?.message).toMatch(/AAAA record 2001:db8::1.*Delete it/);
    expect(result.expected).toEqual([{ type: 'A', name: 'customer.com', value: '203.0.113.10' }]);
  });

  it('names the CA to allow in CAA', () => {
    const result = evaluateDnsVerification({
      hostname: 'shop.customer.com', isApex: false, edge, caaIdentities,
      observed: obs({ cnameChain: ['edge.hostgate.test'], caa: caa('customer.com', ['issue', 'digicert.com']) }),
    });
    expect(result.problem?.message).toBe('The CAA records on customer.com allow only digicert.com to issue certificates, so we cannot get one for shop.customer.com. Add a CAA record on customer.com: 0 issue "letsencrypt.org".');
  });

  it('only lookup failures are retryable', () => {
    expect(isRetryableProblem({ code: 'lookup_failed', message: '' })).toBe(true);
    expect(isRetryableProblem({ code: 'wrong_target', message: '' })).toBe(false);
    expect(isRetryableProblem(null)).toBe(false);
  });

  it('knows Cloudflare ranges and leaves other addresses alone', () => {
    expect(detectCdn([], ['131.0.72.1'])?.name).toBe('Cloudflare');
    expect(detectCdn([], ['172.71.255.255'])?.name).toBe('Cloudflare');
    expect(detectCdn([], ['172.72.0.1'])).toBeNull();
    expect(detectCdn(['foo.cloudfront.net.'], [])?.name).toBe('Amazon CloudFront');
    expect(detectCdn(['notcloudfront.net'], [])).toBeNull();
  });
});
