// Served hostnames for bench:edge, fast and in bulk: self-signed WebCrypto ECDSA P-256 leaves (one
// key shared by every hostname) and one statement each for their domains and certificates rows.
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { newId } from '../../db/ids.ts';
import { sql, type Db } from '../../db/pool.ts';
import { certificateKeyContext } from '../../edge/agent/snapshot.ts';
import { SecretBox } from '../../security/secret-box.ts';
import { testConfig } from '../../test/support/app.ts';

// --- certificates, fast: WebCrypto ECDSA P-256, one leaf key shared by every hostname ----------
x509.cryptoProvider.set(webcrypto as Crypto);
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const leafKeys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
const leafKeyPem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
export async function selfSigned(hostname: string): Promise<string> {
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^[89a-f]/, '1'),
    name: `CN=${hostname}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 7 * 86_400_000),
    keys: leafKeys as CryptoKeyPair,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: hostname }])],
  });
  return cert.toString('pem');
}

const box = new SecretBox(testConfig().encryptionKeys);

/** Domains with certificates, in bulk (one statement each for domains and certificates). */
export async function insertServed(db: Db, organizationId: string, destinationId: string, items: { hostname: string; certPem: string }[]): Promise<string[]> {
  const domainIds = items.map(() => newId('domain'));
  const certIds = items.map(() => newId('certificate'));
  const sealed = certIds.map((id) => box.seal(leafKeyPem, certificateKeyContext(id)));
  await db.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
      select d, ${organizationId}, ${destinationId}, h, false, 'active'
      from unnest(${sql.array(domainIds, 'text')}, ${sql.array(items.map((i) => i.hostname), 'text')}) as t (d, h)`);
    await tx.query(sql.unsafe`
      insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
      select c, d, c, 'bench', now() - interval '1 minute', now() + interval '7 days', pem, decode(k, 'base64'), ${sealed[0]!.keyId}
      from unnest(${sql.array(certIds, 'text')}, ${sql.array(domainIds, 'text')}, ${sql.array(items.map((i) => i.certPem), 'text')},
                  ${sql.array(sealed.map((s) => s.ciphertext.toString('base64')), 'text')}) as t (c, d, pem, k)`);
  });
  return domainIds;
}

