// PKCS#10 certificate signing requests (RFC 2986) for one DNS name, built with node:crypto: the
// name goes in subjectAltName (an extensionRequest attribute), the subject stays empty (RFC 8555
// §7.4 and the CA/B Baseline Requirements take names from the SAN). acme-client's createCsr does
// the same through @peculiar/x509 and WebCrypto at several times the CPU per request, which a
// burst of issuances paid for every certificate.
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Buffer[]) => { const body = Buffer.concat(content); return Buffer.concat([Buffer.from([tag]), length(body.length), body]); };
const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const SIGNATURE_ALGORITHMS: Record<string, { oid: string; hash: string; nullParams: boolean }> = {
  'ec:prime256v1': { oid: '1.2.840.10045.4.3.2', hash: 'sha256', nullParams: false }, // ecdsa-with-SHA256
  'ec:secp384r1': { oid: '1.2.840.10045.4.3.3', hash: 'sha384', nullParams: false }, // ecdsa-with-SHA384
  rsa: { oid: '1.2.840.113549.1.1.11', hash: 'sha256', nullParams: true }, // sha256WithRSAEncryption
};

/** A DER-encoded PKCS#10 request for `hostname` (an ASCII/punycode DNS name), signed with `key`. */
export function createCsrDer(hostname: string, key: KeyObject | string): Buffer {
  const privateKey = typeof key === 'string' ? createPrivateKey(key) : key;
  const type = privateKey.asymmetricKeyType === 'ec' ? `ec:${privateKey.asymmetricKeyDetails?.namedCurve}` : privateKey.asymmetricKeyType ?? '';
  const algorithm = SIGNATURE_ALGORITHMS[type];
  if (!algorithm) throw new Error(`unsupported certificate key type ${type}`);
  if (!/^[\x21-\x7e]{1,253}$/.test(hostname)) throw new Error('the CSR name must be an ASCII DNS name');
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const sanExtension = sequence(oid('2.5.29.17'), tlv(0x04, sequence(tlv(0x82, Buffer.from(hostname, 'ascii')))));
  const extensionRequest = sequence(oid('1.2.840.113549.1.9.14'), set(sequence(sanExtension)));
  const info = sequence(
    tlv(0x02, Buffer.from([0])), // version 0
    sequence(), // empty subject
    spki,
    tlv(0xa0, extensionRequest), // [0] IMPLICIT attributes
  );
  const signature = sign(algorithm.hash, info, { key: privateKey, dsaEncoding: 'der' });
  const algorithmId = algorithm.nullParams ? sequence(oid(algorithm.oid), Buffer.from([0x05, 0x00])) : sequence(oid(algorithm.oid));
  return sequence(info, algorithmId, tlv(0x03, Buffer.from([0]), signature));
}

/** The same request, PEM-encoded ("CERTIFICATE REQUEST"), as acme-client's finalizeOrder takes it. */
export function createCsrPem(hostname: string, key: KeyObject | string): string {
  const b64 = createCsrDer(hostname, key).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}
