// Checks of what the agent reads from the database before HAProxy sees it: a hostname HAProxy's
// files can hold, a certificate that parses, matches its key, names the hostname and is within
// its validity. A row that fails is skipped and reported, never handed to HAProxy (one bad
// certificate in a crt-list stops HAProxy from starting at all).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Problem } from '../../model/problem.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: Problem };

// LDH labels, no trailing dot, lower case (domains.hostname is stored lower-cased).
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * Whether a name can go into a crt-list SNI filter, a map key and a file name as is. A wildcard
 * `*.<name>` can (issue 22): HAProxy's crt-list takes it as a wildcard SNI filter, the host map
 * as the key its fallback lookup builds (edge/haproxy.cfg.template), a file name as it is.
 */
export function checkHostname(hostname: string): Problem | null {
  const name = hostname.startsWith('*.') ? hostname.slice(2) : hostname;
  return HOSTNAME.test(name) && (name === hostname || name.length <= 251) ? null : { code: 'invalid_hostname', message: `"${hostname.slice(0, 80)}" is not a valid hostname` };
}

/** A destination HAProxy can connect to: a DNS name (resolved per request) and a TCP port. */
export function checkDestination(host: string, port: number): Problem | null {
  if (!HOSTNAME.test(host.toLowerCase())) return { code: 'invalid_destination', message: `destination host "${host.slice(0, 80)}" is not a DNS name` };
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { code: 'invalid_destination', message: `destination port ${port} is not a TCP port` };
  return null;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

export interface ServableCertificate {
  /** Leaf, intermediates, then the key: the PEM HAProxy loads; no blank line anywhere. */
  pem: string;
  serial: string;
  notAfter: Date;
}

/**
 * The PEM bundle HAProxy should serve for `hostname`, or why not. Blank lines are dropped: over
 * the runtime API a payload ends at the first empty line.
 */
export function checkCertificate(hostname: string, chainPem: string, keyPem: string, now = new Date()): Checked<ServableCertificate> {
  const fail = (code: string, message: string): Checked<ServableCertificate> => ({ ok: false, problem: { code, message } });
  const certs = (chainPem.match(PEM_BLOCK) ?? []).filter((b) => b.startsWith('-----BEGIN CERTIFICATE-----'));
  if (certs.length === 0) return fail('certificate_unreadable', `the stored chain of ${hostname} holds no certificate`);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs[0]!);
    for (const c of certs.slice(1)) new X509Certificate(c);
  } catch (error) {
    return fail('certificate_unreadable', `the stored chain of ${hostname} does not parse: ${(error as Error).message}`);
  }
  const keys = keyPem.match(PEM_BLOCK) ?? [];
  if (keys.length !== 1 || !/PRIVATE KEY-----$/.test(keys[0]!)) return fail('key_unreadable', `the stored key of ${hostname} is not one PEM private key`);
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(keys[0]!))) return fail('key_mismatch', `the stored key of ${hostname} does not belong to its certificate`);
  } catch (error) {
    return fail('key_unreadable', `the stored key of ${hostname} does not parse: ${(error as Error).message}`);
  }
  if (!leaf.checkHost(hostname, { subject: 'never' })) return fail('certificate_name_mismatch', `the certificate stored for ${hostname} does not name it`);
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime()) return fail('certificate_expired', `the certificate stored for ${hostname} expired at ${notAfter.toISOString()}`);
  if (new Date(leaf.validFrom).getTime() > now.getTime() + 60_000) return fail('certificate_not_yet_valid', `the certificate stored for ${hostname} is valid only from ${new Date(leaf.validFrom).toISOString()}`);
  const pem = [...certs, keys[0]!].join('\n').replace(/\r/g, '').split('\n').filter((l) => l.trim() !== '').join('\n') + '\n';
  return { ok: true, value: { pem, serial: leaf.serialNumber.toLowerCase(), notAfter } };
}
