// The customer's own certificate (issue 22, part B; docs/custom-certificates.md): what makes one
// acceptable, checked with node:crypto only (no openssl process), one stable refusal code per
// reason. When a managed certificate takes over from one about to lapse is
// model/certificate-lifetime.ts's (customTakeoverAt: the workflow bundle imports it).
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Largest PEM chain and key accepted (the body limit is 64 KiB; a chain of 10 RSA-4096 certificates is ≈ 20 KiB). */
export const MAX_CHAIN_PEM_CHARS = 32_768;
export const MAX_KEY_PEM_CHARS = 16_384;
/** At most this many certificates in the chain (leaf included). */
export const MAX_CHAIN_CERTIFICATES = 10;
/** A certificate valid from a moment this close in the future is accepted (clocks disagree). */
export const NOT_YET_VALID_TOLERANCE_MS = 5 * 60_000;

export type CustomCertificateRefusal =
  | 'certificate_unparseable' | 'private_key_unparseable' | 'certificate_key_mismatch' | 'certificate_key_too_weak'
  | 'certificate_key_unsupported' | 'certificate_hostname_mismatch' | 'certificate_expired' | 'certificate_not_yet_valid'
  | 'certificate_untrusted';

export interface AcceptedCertificate {
  /** Leaf then the intermediates of the path that was built (trust anchor left out), PEM, no blank lines. */
  chainPem: string;
  /** The private key as PKCS#8 PEM (what is sealed and stored). */
  keyPem: string;
  serial: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
}

export type CheckedCustom = { ok: true; value: AcceptedCertificate } | { ok: false; code: CustomCertificateRefusal; message: string; param: 'certificate' | 'private_key' };

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const ANY_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----/g;

/** Node's bundled public roots (Mozilla's list), parsed once. */
let publicRoots: X509Certificate[] | null = null;
function nodeRoots(): X509Certificate[] {
  publicRoots ??= rootCertificates.flatMap((pem) => { try { return [new X509Certificate(pem)]; } catch { return []; } });
  return publicRoots;
}

/** The certificates of a PEM bundle (an operator's CA file); throws when one does not parse. */
export function parseCertificateBundle(pem: string): X509Certificate[] {
  return (pem.match(CERT_BLOCK) ?? []).map((b) => new X509Certificate(b));
}

/** The operator's extra trust anchors (HOSTGATE_CUSTOM_CERT_CA_FILE), read once at start: a bad file is an error there. */
export function loadOperatorCas(path: string | undefined): X509Certificate[] {
  if (!path) return [];
  const cas = parseCertificateBundle(readFileSync(path, 'utf8'));
  if (cas.length === 0) throw new Error(`HOSTGATE_CUSTOM_CERT_CA_FILE (${path}) holds no PEM certificate`);
  return cas;
}

/**
 * Whether `hostname` is covered by the certificate's DNS SANs (the subject CN is not looked at,
 * RFC 6125 §6.4.4). A wildcard SAN covers exactly one leftmost label; a wildcard hostname
 * (`*.name`, issue 22's wildcards) needs that very wildcard SAN.
 */
export function coversHostname(cert: X509Certificate, hostname: string): boolean {
  if (hostname.startsWith('*.')) {
    const sans = (cert.subjectAltName ?? '').split(',').map((s) => s.trim().toLowerCase());
    return sans.includes(`dns:${hostname}`);
  }
  return cert.checkHost(hostname, { subject: 'never', wildcards: true, partialWildcards: false, multiLabelWildcards: false }) !== undefined;
}

/** RSA ≥ 2048 bits or EC P-256/P-384; anything else says why. */
function keyProblem(key: KeyObject): { code: 'certificate_key_too_weak' | 'certificate_key_unsupported'; message: string } | null {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    return bits >= 2048 ? null : { code: 'certificate_key_too_weak', message: `the RSA key has ${bits} bits; at least 2048 are required` };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = details.namedCurve ?? 'unknown';
    return curve === 'prime256v1' || curve === 'secp384r1' ? null
      : { code: 'certificate_key_unsupported', message: `the EC key is on curve ${curve}; P-256 (prime256v1) or P-384 (secp384r1) is required` };
  }
  return { code: 'certificate_key_unsupported', message: `the key type ${key.asymmetricKeyType ?? 'unknown'} is not supported; use RSA (2048 bits or more) or EC P-256/P-384` };
}

function signedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return issuer.ca && child.checkIssued(issuer) && child.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * The path from the leaf through the given intermediates to a trust anchor (a public root or one
 * of `extraAnchors`), intermediates only (anchors left out); null when none builds. Every
 * certificate on the path must be within its validity at `now`.
 */
function buildPath(leaf: X509Certificate, intermediates: readonly X509Certificate[], anchors: readonly X509Certificate[], now: number): X509Certificate[] | null {
  const path: X509Certificate[] = [];
  const valid = (c: X509Certificate) => Date.parse(c.validFrom) <= now + NOT_YET_VALID_TOLERANCE_MS && Date.parse(c.validTo) > now;
  const isAnchor = (c: X509Certificate) => anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  let current = leaf;
  for (let depth = 0; depth <= MAX_CHAIN_CERTIFICATES; depth++) {
    if (depth > 0 && isAnchor(current)) return path.slice(0, -1);
    if (anchors.some((a) => valid(a) && signedBy(current, a))) return path;
    const next = intermediates.find((c) => !path.includes(c) && c !== current && valid(c) && signedBy(current, c));
    if (!next) return null;
    path.push(next);
    current = next;
  }
  return null;
}

/**
 * Checks a customer's certificate for `hostname`: the PEMs parse, the key matches the leaf and is
 * strong enough, the leaf names the hostname and is within its validity, and the chain builds to
 * a public root (node's tls.rootCertificates) or one of the operator's CAs. The first failing
 * check is the answer (in that order).
 */
export function checkCustomCertificate(input: { hostname: string; certificatePem: string; privateKeyPem: string; operatorCas: readonly X509Certificate[]; now?: number; publicRoots?: boolean }): CheckedCustom {
  const now = input.now ?? Date.now();
  const refuse = (code: CustomCertificateRefusal, message: string, param: 'certificate' | 'private_key' = 'certificate'): CheckedCustom => ({ ok: false, code, message, param });
  const blocks = input.certificatePem.match(CERT_BLOCK) ?? [];
  const otherBlocks = [...input.certificatePem.matchAll(ANY_BLOCK)].filter((m) => m[1] !== 'CERTIFICATE');
  if (otherBlocks.length > 0) return refuse('certificate_unparseable', `certificate must hold only CERTIFICATE PEM blocks (found ${otherBlocks[0]![1]}); send the private key in private_key`);
  if (blocks.length === 0) return refuse('certificate_unparseable', 'certificate holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  if (blocks.length > MAX_CHAIN_CERTIFICATES) return refuse('certificate_unparseable', `certificate holds ${blocks.length} certificates; at most ${MAX_CHAIN_CERTIFICATES} are accepted`);
  let chain: X509Certificate[];
  try {
    chain = blocks.map((b) => new X509Certificate(b));
  } catch (error) {
    return refuse('certificate_unparseable', `a certificate in the chain does not parse: ${(error as Error).message}`);
  }
  const leaf = chain[0]!;
  let key: KeyObject;
  try {
    if (/ENCRYPTED/.test(input.privateKeyPem)) throw new Error('the key is encrypted; send it unencrypted (it is stored sealed)');
    key = createPrivateKey({ key: input.privateKeyPem, format: 'pem' });
  } catch (error) {
    return refuse('private_key_unparseable', `private_key is not a readable PEM private key: ${(error as Error).message}`, 'private_key');
  }
  let matches = false;
  try { matches = leaf.checkPrivateKey(key); } catch { matches = false; }
  if (!matches) return refuse('certificate_key_mismatch', 'private_key does not belong to the first certificate of the chain (the leaf)', 'private_key');
  const weak = keyProblem(key);
  if (weak) return refuse(weak.code, weak.message, 'private_key');
  if (!coversHostname(leaf, input.hostname)) {
    return refuse('certificate_hostname_mismatch', `the certificate's names (${leaf.subjectAltName ?? 'no subjectAltName'}) do not cover ${input.hostname}`);
  }
  const notBefore = Date.parse(leaf.validFrom);
  const notAfter = Date.parse(leaf.validTo);
  if (notAfter <= now) return refuse('certificate_expired', `the certificate expired at ${new Date(notAfter).toISOString()}`);
  if (notBefore > now + NOT_YET_VALID_TOLERANCE_MS) return refuse('certificate_not_yet_valid', `the certificate is valid only from ${new Date(notBefore).toISOString()}`);
  const anchors = [...(input.publicRoots === false ? [] : nodeRoots()), ...input.operatorCas];
  const path = buildPath(leaf, chain.slice(1), anchors, now);
  if (!path) {
    const selfSigned = leaf.checkIssued(leaf);
    return refuse('certificate_untrusted', selfSigned
      ? 'the certificate is self-signed; send one issued by a public CA (or by a CA the operator configured in HOSTGATE_CUSTOM_CERT_CA_FILE)'
      : `no chain from the certificate (issued by ${leaf.issuer.split('\n').join(', ')}) to a public root or a CA the operator configured; include the intermediate certificates after the leaf`);
  }
  const pem = (c: X509Certificate) => c.toString().replace(/\r/g, '').split('\n').filter((l) => l.trim() !== '').join('\n');
  return {
    ok: true,
    value: {
      chainPem: [leaf, ...path].map(pem).join('\n') + '\n',
      keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
      serial: leaf.serialNumber.toLowerCase(),
      issuer: leaf.issuer.split('\n').join(', '),
      notBefore: new Date(notBefore).toISOString(),
      notAfter: new Date(notAfter).toISOString(),
    },
  };
}
