// SSRF guard for every URL the service connects to on a customer's behalf (destinations, webhook
// endpoints). Checking the URL text is only the first gate: a public-looking name can resolve to
// 127.0.0.1 or change its answer between check and use (DNS rebinding). So the address actually
// connected to is checked too, by resolving once, checking every answer, and connecting to the
// checked address (`resolvePublicAddress`, `createGuardedLookup`).
//
// `allowPrivate` (HOSTGATE_ALLOW_PRIVATE_TARGETS) exists for local stacks and tests, where origins
// and webhook receivers live on loopback; production leaves it off.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { promises as dnsPromises } from 'node:dns';
import { BlockList, isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';
import { Semaphore } from '../process/semaphore.ts';

// ---------------------------------------------------------------------------------------------
// Addresses (node:net BlockList, as model/dns-verification.ts does for CDN ranges)

// IANA special-purpose IPv4 ranges that are not globally reachable, plus ranges that are but that
// no customer origin legitimately uses (documentation, benchmarking, 6to4 relay anycast).
const V4_NON_PUBLIC: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (also Alibaba's metadata at 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (Oracle metadata at 192.0.0.192)
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

// IPv6 prefixes that carry an IPv4 address in their low bits, which the kernel or a gateway
// routes to that IPv4 address: such an address is exactly as public as the one it embeds.
//   ::ffff:0:0/96 (mapped), ::/96 (compatible, which also covers :: and ::1), 64:ff9b::/96
//   (NAT64 well-known prefix), and 2002::/16 (6to4: 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD).
const V6_EMBEDDING: readonly { prefix: (v4: string, hex: [string, string]) => string; bits: number }[] = [
  { prefix: (v4) => `::ffff:${v4}`, bits: 96 },
  { prefix: (v4) => `::${v4}`, bits: 96 },
  { prefix: (v4) => `64:ff9b::${v4}`, bits: 96 },
  { prefix: (_v4, [hi, lo]) => `2002:${hi}:${lo}::`, bits: 16 },
];

// Only global unicast (2000::/3) and the embedding prefixes can be public; this leaves out ::1
// (through ::/96 and 0.0.0.0/8), fc00::/7 (incl. fd00:ec2::254), fe80::/10, ff00::/8,
// 64:ff9b:1::/48, 100::/64 and everything unassigned.
const V6_MAYBE_PUBLIC: readonly [string, number][] = [['2000::', 3], ['::ffff:0:0', 96], ['::', 96], ['64:ff9b::', 96]];
const V6_NON_PUBLIC: readonly [string, number][] = [
  ['2001::', 23], // IETF protocol assignments, Teredo 2001::/32
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
];

/** An IPv4 address as the two 16-bit hex groups it takes in an IPv6 address ("10.1.2.3" → ["a01", "203"]). */
function v4Halves(v4: string): [string, string] {
  const value = v4.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
  return [(value >>> 16).toString(16), (value & 0xffff).toString(16)];
}

/** The non-public IPv4 ranges as CIDRs (the edge refuses origins there: edge/haproxy.cfg.template). */
export const NON_PUBLIC_IPV4_CIDRS: readonly string[] = V4_NON_PUBLIC.map(([network, bits]) => `${network}/${bits}`);

/**
 * IPv6 as the edge checks it (an ACL has no "and not" between ranges): an origin address must lie
 * in GLOBAL_UNICAST_IPV6 and in none of NON_PUBLIC_GLOBAL_IPV6_CIDRS — the same answer as
 * `isPublicAddress` for every IPv6 address but the IPv4-embedding prefixes outside 2000::/3
 * (mapped, compatible, NAT64), which the edge refuses outright: DNS does not hand those out.
 */
export const GLOBAL_UNICAST_IPV6 = '2000::/3';
export const NON_PUBLIC_GLOBAL_IPV6_CIDRS: readonly string[] = [
  ...V6_NON_PUBLIC.map(([network, bits]) => `${network}/${bits}`),
  // 6to4 (2002::/16) addresses that tunnel to a non-public IPv4 address.
  ...V4_NON_PUBLIC.map(([network, bits]) => {
    const [hi, lo] = v4Halves(network);
    return `2002:${hi}:${lo}::/${16 + bits}`;
  }),
];

const nonPublicV4 = new BlockList();
const maybePublicV6 = new BlockList();
const nonPublicV6 = new BlockList();
for (const [network, bits] of V4_NON_PUBLIC) {
  nonPublicV4.addSubnet(network, bits, 'ipv4');
  for (const { prefix, bits: prefixBits } of V6_EMBEDDING) nonPublicV6.addSubnet(prefix(network, v4Halves(network)), prefixBits + bits, 'ipv6');
}
for (const [network, bits] of V6_MAYBE_PUBLIC) maybePublicV6.addSubnet(network, bits, 'ipv6');
for (const [network, bits] of V6_NON_PUBLIC) nonPublicV6.addSubnet(network, bits, 'ipv6');

/**
 * True when `ip` is a globally reachable unicast address that a customer origin or webhook receiver
 * may use. Accepts IPv4, IPv6 (also in brackets); anything else, including IPv4 shorthand like
 * "127.1" and scoped IPv6 like "fe80::1%eth0", is not public.
 */
export function isPublicAddress(ip: string): boolean {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  switch (isIP(text)) {
    case 4: return !nonPublicV4.check(text, 'ipv4');
    case 6: return !text.includes('%') && maybePublicV6.check(text, 'ipv6') && !nonPublicV6.check(text, 'ipv6');
    default: return false;
  }
}

// ---------------------------------------------------------------------------------------------
// URLs

export type DestinationUrlResult = { ok: true; url: string; host: string; port: 443 | 8443 } | { ok: false; message: string };
export type WebhookUrlResult = { ok: true; url: string } | { ok: false; message: string };

const MAX_URL = 2048;

// Names that only mean something inside a network: RFC 6761/6762 (localhost, local), ICANN's
// private-use TLD (internal, 2024), home.arpa (RFC 8375), and TLDs that ICANN will not delegate
// because they are in wide private use (corp, home, lan, …).
const PRIVATE_NAME_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'lan', 'home', 'corp', 'intranet', 'private'];

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

type HostCheck = { ok: true; host: string; kind: 'ip' | 'name' } | { ok: false; message: string };

/** Host rules shared by destinations and webhooks; `hostname` is a WHATWG URL `hostname`. */
function checkHost(hostname: string, what: string, allowPrivate: boolean): HostCheck {
  if (hostname.startsWith('[') || isIPv4(hostname)) {
    const ip = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (!allowPrivate && !isPublicAddress(ip)) {
      return { ok: false, message: `The ${what} host ${ip} is not a public IP address (loopback, private, link-local, metadata and reserved ranges are refused); use a public address or DNS name.` };
    }
    return { ok: true, host: ip, kind: 'ip' };
  }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  const labels = name.split('.');
  if (name.length === 0 || name.length > 253 || !labels.every((l) => DNS_LABEL.test(l))) {
    return { ok: false, message: `The ${what} host "${hostname}" is not a valid DNS name; use letters, digits, hyphens and dots, for example app.example.com.` };
  }
  if (!allowPrivate) {
    if (labels.length < 2) {
      return { ok: false, message: `The ${what} host "${name}" is not a public DNS name; use a fully qualified name such as app.example.com.` };
    }
    const privateSuffix = PRIVATE_NAME_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
    if (privateSuffix) {
      return { ok: false, message: `The ${what} host "${name}" is a local or internal name (.${privateSuffix}) that is not reachable from the internet; use a public DNS name.` };
    }
  }
  return { ok: true, host: name, kind: 'name' };
}

function parseUrl(input: string, what: string): { ok: true; url: URL; text: string } | { ok: false; message: string } {
  const text = typeof input === 'string' ? input.trim() : '';
  if (text === '') return { ok: false, message: `The ${what} URL is required, for example https://app.example.com.` };
  if (text.length > MAX_URL) return { ok: false, message: `The ${what} URL can be at most ${MAX_URL} characters long.` };
  // The URL parser silently drops tabs and newlines inside a URL; a URL containing any is a mistake.
  if (/[\s\x00-\x1f\x7f]/.test(text)) return { ok: false, message: `The ${what} URL must not contain spaces or control characters.` };
  if (!URL.canParse(text)) return { ok: false, message: `The ${what} URL is not a valid URL; write it in full, for example https://app.example.com.` };
  const url = new URL(text);
  if (url.username !== '' || url.password !== '' || authorityOf(text).includes('@')) {
    return { ok: false, message: `The ${what} URL must not contain a username or password.` };
  }
  return { ok: true, url, text };
}

/** The authority part of the raw text, so "https://@host" (which the parser normalises away) is caught too. */
function authorityOf(text: string): string {
  const afterScheme = text.replace(/^[a-z][a-z0-9+.-]*:[/\\]*/i, '');
  return afterScheme.split(/[/?#\\]/, 1)[0] ?? '';
}

/**
 * A destination (the customer's origin): `https://host[:port]` with port 443 or 8443 and nothing
 * else. `url` is the normal form (`https://host`, `:8443` kept, trailing dot dropped); `host` is the
 * DNS name or IP address without brackets, as given to `resolvePublicAddress` or `net.connect`.
 */
export function parseDestinationUrl(input: string, opts: { allowPrivate: boolean }): DestinationUrlResult {
  const parsed = parseUrl(input, 'destination');
  if (!parsed.ok) return parsed;
  const { url, text } = parsed;
  if (url.protocol !== 'https:') return { ok: false, message: 'The destination URL must start with https://, for example https://app.example.com.' };
  if (url.search !== '' || text.includes('?')) return { ok: false, message: 'The destination URL must not contain a query string (?…); give only https://host[:port].' };
  if (url.hash !== '' || text.includes('#')) return { ok: false, message: 'The destination URL must not contain a fragment (#…); give only https://host[:port].' };
  if (url.pathname !== '/') return { ok: false, message: 'The destination URL must not contain a path; give only https://host[:port], requests keep their own path.' };
  const port = url.port === '' ? 443 : Number(url.port);
  if (port !== 443 && port !== 8443) return { ok: false, message: `The destination port must be 443 or 8443, not ${port}.` };
  const host = checkHost(url.hostname, 'destination', opts.allowPrivate);
  if (!host.ok) return host;
  const hostPart = host.kind === 'ip' && host.host.includes(':') ? `[${host.host}]` : host.host;
  return { ok: true, url: `https://${hostPart}${port === 8443 ? ':8443' : ''}`, host: host.host, port };
}

/**
 * Why `host` (a destination's) is this service's own edge, or null: the service domain or a name
 * under it, the CNAME target customers point at, or an edge address. Requests proxied there would
 * come back to the edge in a loop.
 */
export function ownEdgeHost(host: string, edge: { serviceDomain: string; cnameTarget: string; ipv4: readonly string[]; ipv6: readonly string[] }): string | null {
  const h = host.toLowerCase();
  const own = [edge.serviceDomain.toLowerCase(), edge.cnameTarget.toLowerCase()];
  if (own.some((name) => h === name || h.endsWith(`.${name}`))) return `${host} is this service's own domain`;
  const address = literal(h);
  if (address !== null && [...edge.ipv4, ...edge.ipv6].some((ip) => sameAddress(ip, address))) return `${host} is an address of this service's edge`;
  return null;
}

/**
 * A webhook endpoint: https (http only with `allowPrivate`, for local receivers), any port, path and
 * query, no credentials, no fragment (it is never sent, so one is most likely a paste mistake).
 * `url` is the WHATWG-serialised form (lowercase scheme and host, punycode, default port dropped).
 */
export function parseWebhookUrl(input: string, opts: { allowPrivate: boolean }): WebhookUrlResult {
  const parsed = parseUrl(input, 'webhook');
  if (!parsed.ok) return parsed;
  const { url, text } = parsed;
  if (url.protocol !== 'https:' && !(opts.allowPrivate && url.protocol === 'http:')) {
    return { ok: false, message: 'The webhook URL must start with https://, for example https://hooks.example.com/hostgate.' };
  }
  if (url.hash !== '' || text.includes('#')) return { ok: false, message: 'The webhook URL must not contain a fragment (#…); fragments are never sent to the server.' };
  if (url.port === '0') return { ok: false, message: 'The webhook URL port must be between 1 and 65535.' };
  const host = checkHost(url.hostname, 'webhook', opts.allowPrivate);
  if (!host.ok) return host;
  return { ok: true, url: url.href };
}

// ---------------------------------------------------------------------------------------------
// Connect-time checks

/** Thrown (or passed to a lookup callback) when a target resolves to a non-public address. */
export class UnsafeAddressError extends Error {
  code = 'ERR_UNSAFE_ADDRESS';
  hostname: string;
  address: string | undefined;
  constructor(message: string, hostname: string, address?: string) {
    super(message);
    this.name = 'UnsafeAddressError';
    this.hostname = hostname;
    this.address = address;
  }
}

export type PromiseLookup = typeof dnsPromises.lookup;

export interface GuardOptions {
  allowPrivate: boolean;
  lookup?: PromiseLookup;
  /** Public addresses refused too (this service's own edge: a destination there would loop). */
  forbidden?: readonly string[];
}

/**
 * Whether two IP address texts name the same address (`2A05:D014:0:0::10` and `2a05:d014::10`):
 * operators write addresses in any valid form, answers come back compressed and lower-case.
 */
export function sameAddress(a: string, b: string): boolean {
  const canonical = (ip: string) => {
    const text = ip.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIPv4(text)) return text;
    if (!isIPv6(text)) return null;
    try { return new URL(`http://[${text}]/`).hostname; } catch { return null; }
  };
  const x = canonical(a);
  return x !== null && x === canonical(b);
}

function literal(hostname: string): string | null {
  const text = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIPv4(text) || isIPv6(text) ? text : null;
}

/**
 * getaddrinfo runs on libuv's thread pool (4 threads by default), cannot be cancelled, and waits
 * for the system resolver's own timeouts: a few customer hostnames whose DNS never answers would
 * hold every thread, and the process's other lookups — Postgres and Temporal by name, as in the
 * compose file — would queue behind them. Customer lookups get at most this many threads at once;
 * past `LOOKUP_QUEUE_MS` of waiting for one, the lookup fails (a delivery is retried later).
 */
export const GUARDED_LOOKUPS_AT_ONCE = 2;
const LOOKUP_QUEUE_MS = 5_000;
const lookupLane = new Semaphore(GUARDED_LOOKUPS_AT_ONCE);

/** Guarded lookups running or waiting right now (tests, metrics). */
export function guardedLookupsInFlight(): number {
  return lookupLane.inUse;
}

async function lookUpOnLane(lookup: PromiseLookup, hostname: string, lookupOptions: LookupOptions): Promise<LookupAddress[]> {
  const release = await lookupLane.acquire(LOOKUP_QUEUE_MS);
  if (!release) throw Object.assign(new Error(`DNS lookup of ${hostname} not started: ${GUARDED_LOOKUPS_AT_ONCE} lookups of customer hostnames are already waiting for answers; retry later`), { code: 'ELOOKUPBUSY' });
  // The permit goes back when getaddrinfo returns, not when a caller stops waiting for it.
  return lookup(hostname, { ...lookupOptions, all: true }).finally(release);
}

async function resolveChecked(hostname: string, opts: GuardOptions, lookupOptions: LookupOptions): Promise<LookupAddress[]> {
  const ip = literal(hostname);
  let addresses: LookupAddress[];
  if (ip !== null) {
    addresses = [{ address: ip, family: isIPv4(ip) ? 4 : 6 }];
  } else {
    // The system resolver is asked for the absolute name (a trailing dot) when only public
    // targets are allowed: getaddrinfo then applies neither resolv.conf's search domains nor
    // /etc/hosts, so a customer's `kubernetes.default.svc` cannot reach a cluster-internal name
    // and have its address reported back in the refusal.
    const system = opts.lookup === undefined;
    const asked = system && !opts.allowPrivate && !hostname.endsWith('.') ? `${hostname}.` : hostname;
    addresses = await lookUpOnLane(opts.lookup ?? dnsPromises.lookup, asked, lookupOptions);
  }
  if (addresses.length === 0) throw new UnsafeAddressError(`${hostname} did not resolve to any address.`, hostname);
  if (!opts.allowPrivate) {
    const loop = opts.forbidden?.length ? addresses.find((a) => opts.forbidden!.some((f) => sameAddress(f, a.address))) : undefined;
    if (loop) throw new UnsafeAddressError(`${hostname} resolves to ${loop.address}, an address of this service's edge: requests sent there would come back to the edge in a loop; give your application's own origin.`, hostname, loop.address);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) {
      const what = ip !== null ? `${hostname} is` : `${hostname} resolves to ${bad.address}, which is`;
      throw new UnsafeAddressError(`${what} not a public address (loopback, private, link-local, metadata or reserved range); the target must be reachable on the public internet.`, hostname, bad.address);
    }
  }
  return addresses;
}

/**
 * Resolves `hostname` (or takes an IP literal as is), refuses it when ANY answer is not public
 * (unless `allowPrivate`), and returns the first answer: connect to exactly this address (with the
 * original name for SNI and Host), never resolve again.
 */
export async function resolvePublicAddress(hostname: string, opts: GuardOptions): Promise<{ address: string; family: 4 | 6 }> {
  const [first] = await resolveChecked(hostname, opts, {});
  if (!first) throw new UnsafeAddressError(`${hostname} did not resolve to any address.`, hostname);
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * A `lookup` for http(s).request, net/tls.connect or an undici Agent's `connect` options that applies
 * the same check at connect time, so the connection goes only to an address that was checked. Node
 * skips `lookup` for IP-literal hosts: check those with `resolvePublicAddress` (or a parse function)
 * before sending.
 */
export function createGuardedLookup(opts: GuardOptions): LookupFunction {
  return (hostname, options, callback) => {
    const lookupOptions: LookupOptions = typeof options === 'object' && options !== null ? options : {};
    resolveChecked(hostname, opts, lookupOptions).then(
      (addresses) => {
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, lookupOptions.all ? [] : ''),
    );
  };
}

/**
 * Create-time check of a webhook host: the refusal message when the name resolves to any
 * non-public address now; null when it resolves to public addresses only, does not resolve, or
 * does not answer within `timeoutMs` (the connect-time guard decides at every send anyway). IP
 * literals are the parse functions' business and return null here.
 */
export async function resolvesToPrivate(hostname: string, opts: GuardOptions & { timeoutMs?: number }): Promise<string | null> {
  if (opts.allowPrivate || literal(hostname) !== null) return null;
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), opts.timeoutMs ?? 2000); });
  try {
    return await Promise.race([resolveChecked(hostname, opts, {}).then(() => null), gaveUp]);
  } catch (error) {
    return error instanceof UnsafeAddressError && error.address !== undefined ? error.message : null;
  } finally {
    clearTimeout(timer);
  }
}
