// Decides whether a customer's DNS points at the edge, from what a check found. Pure: the lookups
// happen in activities/dns-check.ts; this module only judges them, so every rule is table-testable.
// Problem `code`s are stable (API clients and the widget branch on them); `message`s are plain
// sentences telling the customer what to change.
import { BlockList, isIP } from 'node:net';
import { dnsRecordsFor, type DnsRecord, type EdgeTargets } from './dns-records.ts';

export type DnsProblemCode =
  | 'nxdomain' | 'no_records' | 'wrong_target' | 'conflicting_records'
  | 'caa_forbids_ca' | 'proxied_by_cdn' | 'lookup_failed'
  // A wildcard's `_acme-challenge.<name>` CNAME into the challenge zone (issue 22, docs/wildcards.md).
  | 'delegation_cname_missing' | 'delegation_cname_wrong';

export interface DnsProblem { code: DnsProblemCode; message: string }

/** How one lookup ended: records found, name does not exist, name exists without this type, or no answer (SERVFAIL, timeout, refused). */
export type LookupStatus = 'found' | 'nxdomain' | 'nodata' | 'error';

export interface AddressLookup { status: LookupStatus; values: string[] }

/** A CAA record as on the wire: flags (128 = critical), tag (issue, issuewild, iodef, …) and value. */
export interface CaaRecord { flags: number; tag: string; value: string }

/**
 * The relevant CAA record set (RFC 8659 §3): the one at the closest name, climbing from the
 * hostname towards the TLD, that has any CAA records. `none` when no name has any.
 */
export type CaaFinding =
  | { status: 'found'; name: string; records: CaaRecord[] }
  | { status: 'none' }
  | { status: 'error'; name: string };

/** How following the hostname's CNAME chain ended. */
export type ChainEnd =
  | 'end' // the last name (the hostname when the chain is empty) has no CNAME
  | 'nxdomain' // the last name does not exist
  | 'loop' // the last target was already in the chain
  | 'too_long' // more hops than the check follows
  | 'error'; // a lookup got no answer

export interface DnsObservation {
  /** The CNAME targets from the hostname on, in order; empty when the hostname has no CNAME. */
  cnameChain: string[];
  chainEnd: ChainEnd;
  /** A and AAAA at the chain's last name (the hostname when the chain is empty). */
  a: AddressLookup;
  aaaa: AddressLookup;
  caa: CaaFinding;
}

export interface VerificationInput {
  hostname: string;
  isApex: boolean;
  edge: EdgeTargets;
  /** Issuer domain names of our CA as CAA records name them (e.g. letsencrypt.org). */
  caaIdentities: string[];
  observed: DnsObservation;
}

export interface VerificationResult { ok: boolean; found: DnsRecord[]; expected: DnsRecord[]; problem: DnsProblem | null }

/** True for problems that say nothing about the customer's records (the check itself failed). */
export function isRetryableProblem(problem: DnsProblem | null): boolean {
  return problem?.code === 'lookup_failed';
}

export function evaluateDnsVerification(input: VerificationInput): VerificationResult {
  const hostname = normName(input.hostname);
  const { isApex, observed } = input;
  const target = normName(input.edge.cnameTarget);
  const expected = dnsRecordsFor({ hostname, isApex }, input.edge);
  const chain = observed.cnameChain.map(normName);
  const lastName = chain.at(-1) ?? hostname;
  const reachesTarget = !isApex && target !== '' && chain.includes(target);

  // What was found: each CNAME hop, then the addresses at the end of the chain. Once the chain is
  // at our target, what lies behind it is ours and not the customer's concern.
  const found: DnsRecord[] = [];
  let from = hostname;
  for (const to of reachesTarget ? chain.slice(0, chain.indexOf(target) + 1) : chain) {
    found.push({ type: 'CNAME', name: from, value: to });
    from = to;
  }
  const a = observed.a.status === 'found' ? unique(observed.a.values.map(normIp)) : [];
  const aaaa = observed.aaaa.status === 'found' ? unique(observed.aaaa.values.map(normIp)) : [];
  if (!reachesTarget) {
    for (const value of a) found.push({ type: 'A', name: lastName, value });
    for (const value of aaaa) found.push({ type: 'AAAA', name: lastName, value });
  }

  const result = (problem: DnsProblem | null): VerificationResult => ({ ok: problem === null, found, expected, problem });
  const records = describeExpected(hostname, isApex, input.edge);

  const addressProblem = reachesTarget ? null : judgeAddresses();
  if (addressProblem) return result(addressProblem);
  return result(judgeCaa(hostname, observed.caa, input.caaIdentities));

  function judgeAddresses(): DnsProblem | null {
    if (observed.chainEnd === 'error' || observed.a.status === 'error' || observed.aaaa.status === 'error') {
      return lookupFailed(hostname);
    }
    const hostnameMissing = chain.length === 0 && a.length === 0 && aaaa.length === 0
      && (observed.chainEnd === 'nxdomain' || (observed.a.status === 'nxdomain' && observed.aaaa.status === 'nxdomain'));
    if (hostnameMissing) {
      return { code: 'nxdomain', message: `${hostname} does not exist in DNS yet. ${records}` };
    }

    const cdn = detectCdn(chain, [...a, ...aaaa]);
    const ours = oursOf(input.edge);
    const ourAddresses = [...a, ...aaaa].filter((ip) => ours.has(ip));
    const foreignA = a.filter((ip) => !ours.has(ip));
    const foreignAaaa = aaaa.filter((ip) => !ours.has(ip));
    if (cdn && !(ourAddresses.length > 0 && foreignA.length === 0 && foreignAaaa.length === 0)) {
      const want = isApex ? `the ${list(expected.map((r) => `${r.type} record ${r.value}`))}` : `a CNAME record to ${target}`;
      return { code: 'proxied_by_cdn', message: `${hostname} is served through ${cdn.name}, another CDN, so requests never reach this service: ${cdn.how}, and make sure ${hostname} has ${want}.` };
    }

    if (isApex && chain.length > 0) {
      return {
        code: 'conflicting_records',
        message: `${hostname} has a CNAME record (to ${chain[0]}), which the root of a domain cannot have next to its other records. Delete the CNAME record. ${records}`,
      };
    }
    if (observed.chainEnd === 'loop') {
      return { code: 'wrong_target', message: `The CNAME records for ${hostname} form a loop (${[hostname, ...chain].join(' → ')}). ${records}` };
    }
    if (observed.chainEnd === 'too_long') {
      return { code: 'wrong_target', message: `${hostname} goes through too many CNAME records (${[hostname, ...chain].join(' → ')}). ${records}` };
    }

    if (ourAddresses.length === 0) {
      if (chain.length > 0) {
        const missing = observed.chainEnd === 'nxdomain' || (observed.a.status === 'nxdomain' && observed.aaaa.status === 'nxdomain');
        return {
          code: 'wrong_target',
          message: `${hostname} points to ${lastName}${missing ? ', which does not exist' : ''}. ${isApex ? records : `Change its CNAME record to ${target}.`}`,
        };
      }
      if (a.length === 0 && aaaa.length === 0) {
        return { code: 'no_records', message: `${hostname} exists but has no CNAME, A or AAAA record. ${records}` };
      }
      if (isApex && expected.length === 0) {
        return { code: 'wrong_target', message: `This service is not set up for root domains like ${hostname}; use a subdomain such as www.${hostname} instead.` };
      }
      return {
        code: 'wrong_target',
        message: `${hostname} points to ${[...a, ...aaaa].join(', ')}, which is not this service. ${isApex ? records : `Replace its A/AAAA records with a CNAME record to ${target}.`}`,
      };
    }
    if (foreignA.length > 0 || foreignAaaa.length > 0) {
      const extra = [
        ...foreignA.map((ip) => `A record ${ip}`),
        ...foreignAaaa.map((ip) => `AAAA record ${ip}`),
      ];
      const onlyIpv4 = foreignAaaa.length > 0 && foreignA.length === 0 && input.edge.ipv6.length === 0;
      return {
        code: 'conflicting_records',
        message: `${lastName} also has the ${list(extra)}, which ${extra.length > 1 ? 'do' : 'does'} not point to this service, so some visitors would not reach it. Delete ${extra.length > 1 ? 'them' : 'it'}${onlyIpv4 ? ' (this service is reached over IPv4 only; an AAAA record must not point elsewhere)' : ''}.`,
      };
    }
    return null;
  }
}

/**
 * Judges the relevant CAA set (RFC 8659 §4.2): for a name, its `issue` records; for a wildcard
 * (`*.<name>`, issue 22), its `issuewild` records when there are any, else its `issue` records
 * (§4.3).
 */
export function judgeCaa(hostname: string, caa: CaaFinding, identities: string[]): DnsProblem | null {
  if (caa.status === 'error') {
    return { code: 'lookup_failed', message: `The CAA records of ${caa.name} could not be checked because its DNS servers did not answer. We will try again shortly.` };
  }
  if (caa.status === 'none') return null;
  const ours = new Set(identities.map(normName));
  const ca = identities[0] ?? 'our certificate authority';
  const criticalUnknown = caa.records.find((r) => (r.flags & 128) !== 0 && !KNOWN_CAA_TAGS.has(r.tag.toLowerCase()));
  if (criticalUnknown) {
    return {
      code: 'caa_forbids_ca',
      message: `${caa.name} has a CAA record marked critical with a tag certificate authorities do not understand ("${criticalUnknown.tag}"), so no certificate can be issued for ${hostname}. Remove that record or clear its critical flag.`,
    };
  }
  const issueWild = hostname.startsWith('*.') ? caa.records.filter((r) => r.tag.toLowerCase() === 'issuewild') : [];
  const issue = issueWild.length > 0 ? issueWild : caa.records.filter((r) => r.tag.toLowerCase() === 'issue');
  if (issue.length === 0) return null;
  const issuers = issue.map((r) => normName(r.value.split(';')[0] ?? ''));
  if (issuers.some((i) => ours.has(i))) return null;
  const named = unique(issuers.filter(Boolean));
  return {
    code: 'caa_forbids_ca',
    message: `The CAA records on ${caa.name} ${named.length ? `allow only ${list(named)} to issue certificates` : 'forbid all certificate authorities from issuing certificates'}, so we cannot get one for ${hostname}. Add a CAA record on ${caa.name}: 0 ${issueWild.length > 0 ? 'issuewild' : 'issue'} "${ca}".`,
  };
}

const KNOWN_CAA_TAGS = new Set(['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone']);

function lookupFailed(hostname: string): DnsProblem {
  return { code: 'lookup_failed', message: `The DNS records of ${hostname} could not be checked because DNS servers did not answer. We will try again shortly.` };
}

function describeExpected(hostname: string, isApex: boolean, edge: EdgeTargets): string {
  const records = dnsRecordsFor({ hostname, isApex }, edge);
  if (!isApex) return `Add a CNAME record for ${hostname} pointing to ${normName(edge.cnameTarget)}.`;
  if (records.length === 0) return `This service is not set up for root domains like ${hostname}; use a subdomain such as www.${hostname} instead.`;
  const parts = records.map((r) => `${r.type} ${r.value}`);
  return `Set ${records.length > 1 ? 'these records' : 'this record'} for ${hostname}: ${list(parts)}.`;
}

// ---- Other CDNs ---------------------------------------------------------------------------------

export interface Cdn { name: string; how: string }

const CLOUDFLARE: Cdn = { name: 'Cloudflare', how: 'turn off the Cloudflare proxy (orange cloud) for this record so it is "DNS only"' };
const CDN_SUFFIXES: [string, Cdn][] = [
  ['cdn.cloudflare.net', CLOUDFLARE],
  ['fastly.net', { name: 'Fastly', how: 'point it directly at this service instead of at Fastly' }],
  ['fastlylb.net', { name: 'Fastly', how: 'point it directly at this service instead of at Fastly' }],
  ['cloudfront.net', { name: 'Amazon CloudFront', how: 'point it directly at this service instead of at CloudFront' }],
  ['akamaiedge.net', { name: 'Akamai', how: 'point it directly at this service instead of at Akamai' }],
  ['edgekey.net', { name: 'Akamai', how: 'point it directly at this service instead of at Akamai' }],
  ['edgesuite.net', { name: 'Akamai', how: 'point it directly at this service instead of at Akamai' }],
  ['akamai.net', { name: 'Akamai', how: 'point it directly at this service instead of at Akamai' }],
  ['azurefd.net', { name: 'Azure Front Door', how: 'point it directly at this service instead of at Azure Front Door' }],
];

// https://www.cloudflare.com/ips/ (proxied records resolve to these; the CNAME is hidden).
const cloudflareIps = new BlockList();
for (const cidr of [
  '173.245.48.0/20', '103.21.244.0/22', '103.22.200.0/22', '103.31.4.0/22', '141.101.64.0/18', '108.162.192.0/18',
  '190.93.240.0/20', '188.114.96.0/20', '197.234.240.0/22', '198.41.128.0/17', '162.158.0.0/15', '104.16.0.0/13',
  '104.24.0.0/14', '172.64.0.0/13', '131.0.72.0/22',
]) addSubnet(cloudflareIps, cidr, 'ipv4');
for (const cidr of ['2400:cb00::/32', '2606:4700::/32', '2803:f800::/32', '2405:b500::/32', '2405:8100::/32', '2a06:98c0::/29', '2c0f:f248::/32']) {
  addSubnet(cloudflareIps, cidr, 'ipv6');
}

function addSubnet(blocks: BlockList, cidr: string, type: 'ipv4' | 'ipv6'): void {
  const [net, prefix] = cidr.split('/') as [string, string];
  blocks.addSubnet(net, Number(prefix), type);
}

/** The CDN a chain ends at or whose addresses answer, when it is one we know; null otherwise. */
export function detectCdn(chain: string[], addresses: string[]): Cdn | null {
  for (const name of chain.map(normName)) {
    for (const [suffix, cdn] of CDN_SUFFIXES) if (name === suffix || name.endsWith(`.${suffix}`)) return cdn;
  }
  for (const ip of addresses) {
    const family = isIP(ip);
    if (family !== 0 && cloudflareIps.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return CLOUDFLARE;
  }
  return null;
}

// ---- Helpers ------------------------------------------------------------------------------------

function oursOf(edge: EdgeTargets): Set<string> {
  return new Set([...edge.ipv4, ...edge.ipv6].map((ip) => normIp(ip.trim())).filter(Boolean));
}

export function normName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** Canonical text form of an address (IPv6 compressed and lowercased) so equal addresses compare equal. */
function normIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip.toLowerCase();
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
