// Client-side hostname check of <service-widget>: the rules of model/hostname.ts
// (`normalizeHostname`) that need no Public Suffix List and no server configuration, in the same
// order and with the same reason codes, so the customer hears about a typo before a request is
// made. The server stays the judge: it also refuses bare public suffixes and its own domain.
// Runs in browsers and in Node (tests compare it with the server's rules).

export type ClientHostnameResult = { ok: true; hostname: string } | { ok: false; reason: string };

const MAX_HOSTNAME = 253;
const MAX_LABEL = 63;
const MAX_INPUT = 1024;
const LABEL = /^[a-z0-9-]+$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

const fail = (reason: string): ClientHostnameResult => ({ ok: false, reason });

/** The WHATWG host parser (what `domainToASCII` uses): punycode for IDNs, '' when refused. */
function toAscii(name: string): string {
  try { return new URL(`http://${name}/`).hostname; } catch { return ''; }
}

/** An IPv6 literal: hex digits, dots and at least two colons (anything else with a colon is a port). */
function isIpv6(name: string): boolean {
  return /^[0-9a-f:.]+$/.test(name) && name.split(':').length > 2;
}

export function checkHostname(input: string): ClientHostnameResult {
  let name = String(input ?? '').trim().toLowerCase();
  if (name === '') return fail('empty');
  if (name.length > MAX_INPUT) return fail('too_long');
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(name) || /[/?#@\\]/.test(name)) return fail('not_a_hostname');
  const bare = name.replace(/\.$/, '');
  if (name.startsWith('[') || name.endsWith(']') || IPV4.test(bare) || isIpv6(bare)) return fail('ip_literal');
  if (name.includes(':')) return fail('not_a_hostname');
  if (name.includes('*')) return fail('wildcard');
  if (/[\x00-\x2c\x2f\x3a-\x60\x7b-\x7f]/.test(name)) return fail('invalid_characters');
  const last = bare.split('.').pop() ?? '';
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(last)) {
    // The URL host parser reads such names as IPv4 ("10.1", "0x7f.1") when it can.
    return IPV4.test(toAscii(name).replace(/\.$/, '')) ? fail('ip_literal') : fail('numeric_tld');
  }
  const ascii = toAscii(name);
  if (ascii === '') return fail('invalid_idn');
  name = ascii.endsWith('.') ? ascii.slice(0, -1) : ascii;
  if (name.length > MAX_HOSTNAME) return fail('too_long');
  const labels = name.split('.');
  if (labels.some((l) => l === '')) return fail('empty_label');
  for (const label of labels) {
    if (label.length > MAX_LABEL) return fail('label_too_long');
    if (!LABEL.test(label)) return fail('invalid_characters');
    if (label.startsWith('-') || label.endsWith('-')) return fail('invalid_hyphen');
    if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) return fail('invalid_idn');
  }
  if (labels.length < 2) return fail('single_label');
  return { ok: true, hostname: name };
}
