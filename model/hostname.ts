// Customer hostnames: one normal form (lowercase ASCII, punycode, no trailing dot) so that uniqueness
// across organizations, DNS checks and certificate orders all see the same string, and refusal of
// names we could never serve (IP literals, wildcards, bare public suffixes, our own domain) before a
// workflow starts on them. `reason` codes are stable; `message` is shown to end users by the widget.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse as parseDomain } from 'tldts';
import { isMixedScript, isWholeScriptConfusable } from './hostname-scripts.ts';

export type HostnameRejection =
  | 'empty' | 'too_long' | 'not_a_hostname' | 'ip_literal' | 'wildcard' | 'invalid_characters'
  | 'invalid_idn' | 'empty_label' | 'label_too_long' | 'invalid_hyphen' | 'numeric_tld'
  | 'single_label' | 'service_domain' | 'public_suffix' | 'mixed_script' | 'confusable';

export type HostnameResult =
  /** `wildcard`: the name is `*.<base>` (only with `allowWildcard`; see model/wildcards.ts). */
  | { ok: true; hostname: string; isApex: boolean; registrableDomain: string; wildcard?: true }
  | { ok: false; reason: HostnameRejection; message: string };

const MAX_HOSTNAME = 253;
const MAX_LABEL = 63;
// Bounds the work done on hostile input before any parsing; far above anything valid.
const MAX_INPUT = 1024;

const LABEL = /^[a-z0-9-]+$/;

function fail(reason: HostnameRejection, message: string): HostnameResult {
  return { ok: false, reason, message };
}

/**
 * Normalises and validates a hostname a customer wants to point at the service.
 *
 * Public Suffix List: private entries (github.io, herokuapp.com, eu.org, …) count as suffixes. So
 * `github.io` is refused as a bare suffix, while `foo.github.io` and `customer.eu.org` are their own
 * registrable domains, which is also what makes `isApex` right for delegated zones like
 * `customer.eu.org` (its owner's zone apex, where a CNAME is not allowed).
 *
 * Special-use names (`.example`, `.test`, `.localhost`) are not refused here: they are harmless (DNS
 * verification simply never succeeds on the public internet) and the local stack and tests use them.
 */
export function normalizeHostname(input: string, opts: { serviceDomain: string; allowWildcard?: boolean }): HostnameResult {
  let name = String(input ?? '').trim().toLowerCase();
  if (name === '') return fail('empty', 'Enter a hostname, for example shop.example.com.');
  if (name.length > MAX_INPUT) return fail('too_long', `A hostname can be at most ${MAX_HOSTNAME} characters long.`);
  // A wildcard (issue 22) is exactly one leading `*.` label over a name that passes every rule
  // below by itself: `*.com`, `*.co.uk` and `*.*.example.com` are refused with the base's reason.
  if (opts.allowWildcard && name.startsWith('*.')) {
    const base = normalizeHostname(name.slice(2), { serviceDomain: opts.serviceDomain });
    if (!base.ok) return base.reason === 'wildcard' ? fail('wildcard', 'A wildcard has exactly one "*." at the start, for example *.shop.example.com.') : base;
    if (base.hostname.length + 2 > MAX_HOSTNAME) return fail('too_long', `A hostname can be at most ${MAX_HOSTNAME} characters long (this one has ${base.hostname.length + 2} once converted).`);
    return { ok: true, hostname: `*.${base.hostname}`, isApex: false, registrableDomain: base.registrableDomain, wildcard: true };
  }

  // Before any IDN processing: domainToASCII parses like a URL host and would silently turn
  // "a/b.com" into "a" or "127.1" into "127.0.0.1".
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(name) || /[/?#@\\]/.test(name)) {
    return fail('not_a_hostname', 'Enter only the hostname (for example shop.example.com), without https://, a path or other URL parts.');
  }
  if (isIpLiteral(name)) {
    return fail('ip_literal', 'IP addresses cannot be used; enter a domain name such as shop.example.com.');
  }
  if (name.includes(':')) {
    return fail('not_a_hostname', 'Enter the hostname without a port, for example shop.example.com.');
  }
  if (name.includes('*')) {
    return fail('wildcard', 'Wildcard hostnames are not supported; add each hostname (for example shop.example.com) separately.');
  }
  // ASCII outside letters, digits, '-' and '.' is never valid; non-ASCII goes through IDNA below.
  if (/[\x00-\x2c\x2f\x3a-\x60\x7b-\x7f]/.test(name)) {
    return fail('invalid_characters', 'A hostname may only contain letters, digits, hyphens and dots (for example shop.example.com).');
  }
  // WHATWG URL hosts ending in a number are IPv4 addresses ("10.1", "0x7f.1"); no TLD is numeric.
  const lastInputLabel = name.replace(/\.$/, '').split('.').pop() ?? '';
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(lastInputLabel)) {
    return isIP(domainToASCII(name).replace(/\.$/, '')) !== 0
      ? fail('ip_literal', 'IP addresses cannot be used; enter a domain name such as shop.example.com.')
      : fail('numeric_tld', 'The last part of a hostname cannot be a number; enter a domain name such as shop.example.com.');
  }

  const ascii = domainToASCII(name);
  if (ascii === '') {
    return fail('invalid_idn', 'This hostname contains characters that cannot be used in a domain name; check it for typos.');
  }
  name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;

  if (name.length > MAX_HOSTNAME) return fail('too_long', `A hostname can be at most ${MAX_HOSTNAME} characters long (this one has ${name.length} once converted).`);
  const labels = name.split('.');
  if (labels.some((l) => l === '')) {
    return fail('empty_label', 'The hostname has an empty part (two dots in a row, or a dot at the start); remove the extra dot.');
  }
  for (const label of labels) {
    if (label.length > MAX_LABEL) return fail('label_too_long', `Each part of a hostname between dots can be at most ${MAX_LABEL} characters long; "${label.slice(0, 20)}…" has ${label.length}.`);
    if (!LABEL.test(label)) {
      return fail('invalid_characters', 'A hostname may only contain letters, digits, hyphens and dots (for example shop.example.com).');
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return fail('invalid_hyphen', `A part of a hostname cannot start or end with a hyphen ("${label}").`);
    }
    // "??--" is reserved for IDNA A-labels (RFC 5891 §4.2.3.1); CAs refuse other uses, and a
    // malformed "xn--" label would only fail later, at certificate time.
    if (label.slice(2, 4) === '--' && (!label.startsWith('xn--') || !isValidALabel(label))) {
      return fail('invalid_idn', `"${label}" is not a valid internationalised domain label; check the hostname for typos.`);
    }
  }
  // Spoofing: a label browsers would show only as punycode (see hostname-scripts.ts).
  const tld = labels[labels.length - 1]!;
  for (const label of labels) {
    if (!label.startsWith('xn--')) continue;
    const unicode = decodePunycode(label.slice(4)) ?? '';
    if (isMixedScript(unicode)) {
      return fail('mixed_script', `"${unicode}" mixes letters of different alphabets (for example a Cyrillic "а" among Latin letters), which browsers treat as a spoofing attempt; type the hostname again using one alphabet.`);
    }
    if (isWholeScriptConfusable(unicode, tld)) {
      return fail('confusable', `"${unicode}" is written in Cyrillic letters that look like Latin ones, which browsers treat as a spoofing attempt; type the hostname again using Latin letters.`);
    }
  }
  if (labels.length < 2) {
    return fail('single_label', 'Enter a fully qualified hostname with a domain, for example shop.example.com.');
  }

  const service = normalizeServiceDomain(opts.serviceDomain);
  if (service !== '' && (name === service || name.endsWith(`.${service}`))) {
    return fail('service_domain', `Hostnames under ${service} belong to the service itself; use a domain you own.`);
  }

  const parsed = parseDomain(name, { allowPrivateDomains: true, extractHostname: false, detectIp: false, validateHostname: false });
  const registrableDomain = parsed.domain;
  if (!registrableDomain || parsed.publicSuffix === name) {
    return fail('public_suffix', `${name} is a public suffix that many unrelated owners register under; enter your own domain, for example shop.${name}.`);
  }
  return { ok: true, hostname: name, isApex: name === registrableDomain, registrableDomain };
}

function isIpLiteral(name: string): boolean {
  if (name.startsWith('[') || name.endsWith(']')) return true;
  return isIP(name.replace(/\.$/, '')) !== 0;
}

function normalizeServiceDomain(domain: string): string {
  const lower = domain.trim().toLowerCase().replace(/\.$/, '');
  return lower === '' ? '' : (domainToASCII(lower) || lower);
}

/** True when `label` ("xn--…") decodes as Punycode to a name that IDNA encodes back to `label`. */
function isValidALabel(label: string): boolean {
  const decoded = decodePunycode(label.slice(4));
  return decoded !== null && domainToASCII(decoded) === label;
}

// RFC 3492 decoder, only to validate A-labels (node:punycode is deprecated, node:url does not check).
const BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72, INITIAL_N = 128;
const MAXINT = 0x7fffffff;

function adapt(delta: number, numPoints: number, first: boolean): number {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / numPoints);
  let k = 0;
  while (delta > ((BASE - TMIN) * TMAX) >> 1) {
    delta = Math.floor(delta / (BASE - TMIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

function digitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22; // '0'..'9' → 26..35
  if (code >= 0x61 && code <= 0x7a) return code - 0x61; // 'a'..'z' → 0..25
  return BASE;
}

function decodePunycode(input: string): string | null {
  const delimiter = input.lastIndexOf('-');
  const output: number[] = [];
  for (let j = 0; j < Math.max(delimiter, 0); j++) output.push(input.charCodeAt(j));
  let n = INITIAL_N, i = 0, bias = INITIAL_BIAS;
  for (let pos = delimiter >= 0 ? delimiter + 1 : 0; pos < input.length;) {
    const oldi = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (pos >= input.length) return null;
      const digit = digitValue(input.charCodeAt(pos++));
      if (digit >= BASE || digit > Math.floor((MAXINT - i) / w)) return null;
      i += digit * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (digit < t) break;
      if (w > Math.floor(MAXINT / (BASE - t))) return null;
      w *= BASE - t;
    }
    const length = output.length + 1;
    bias = adapt(i - oldi, length, oldi === 0);
    if (Math.floor(i / length) > MAXINT - n) return null;
    n += Math.floor(i / length);
    i %= length;
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return null;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}
