// The customer's own certificate through the API (issue 22, part B; docs/custom-certificates.md):
// every refusal with its own code, the certificate stored with its key sealed, the history, the
// workflow's signal, reads with `source: custom`, replacement, removal, idempotency — against real
// Postgres and Temporal (no worker: the edge and the workflow side are
// test/custom-certificate-edge.test.ts and test/custom-certificate-timeskip.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { sql } from '../db/pool.ts';
import { SecretBox } from '../security/secret-box.ts';
import { certificateKeyContext } from '../acme/keys.ts';
import { checkCustomCertificate } from '../model/custom-certificate.ts';
import { customTakeoverAt } from '../model/certificate-lifetime.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { createCertFactory, type CertFactory } from './support/custom-certs.ts';
import { client } from './support/http.ts';

const DAY = 86_400_000;

describe("the customer's own certificate: PUT/DELETE /v1/domains/{id}/certificate", () => {
  let t: TestApp;
  let pki: CertFactory;
  let api: ReturnType<typeof client>;
  let dst: string;
  let auth: Record<string, string>;
  beforeAll(async () => {
    pki = await createCertFactory();
    t = await createTestApp({ config: { HOSTGATE_CUSTOM_CERT_CA_FILE: pki.rootPath } });
    auth = (await createOrgWithKey(t)).auth;
    api = client(t.app, auth);
    dst = (await api.post('/v1/destinations', { url: 'https://app.custom.example.com' })).json().data.id;
  }, 60_000);
  afterAll(async () => { await t?.close(); await pki?.close(); });

  const domain = async (hostname: string) => (await api.post('/v1/domains', { hostname, destination_id: dst })).json().data.id as string;
  const put = (id: string, c: { chainPem: string; keyPem: string }, headers: Record<string, string> = {}) =>
    api.put(`/v1/domains/${id}/certificate`, { certificate: c.chainPem, private_key: c.keyPem }, headers);
  const refusal = (res: { statusCode: number; json(): any }) => [res.statusCode, res.json().error?.code, res.json().error?.param];
  const rows = async (id: string) => await t.database.db.any(sql.unsafe`
    select id, serial, source, withdrawn_at, deleted_at, private_key_enc, key_id, chain_pem from certificates where domain_id = ${id} order by created_at`) as readonly any[];

  it('refuses each bad certificate with its own 422 code and stores nothing', async () => {
    const id = await domain('refused.custom.example.com');
    const good = await pki.issue(['refused.custom.example.com']);
    const other = await pki.issue(['refused.custom.example.com']);
    const cases: Array<[string, { chainPem: string; keyPem: string }, string, string]> = [
      ['garbage PEM', { chainPem: 'not a certificate', keyPem: good.keyPem }, 'certificate_unparseable', 'certificate'],
      ['a broken PEM block', { chainPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', keyPem: good.keyPem }, 'certificate_unparseable', 'certificate'],
      ['a key in the chain', { chainPem: good.chainPem + good.keyPem, keyPem: good.keyPem }, 'certificate_unparseable', 'certificate'],
      ['garbage key', { chainPem: good.chainPem, keyPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }, 'private_key_unparseable', 'private_key'],
      ['mismatched key', { chainPem: good.chainPem, keyPem: other.keyPem }, 'certificate_key_mismatch', 'private_key'],
      ['wrong SAN', await pki.issue(['www.refused.custom.example.com', '*.other.custom.example.com']), 'certificate_hostname_mismatch', 'certificate'],
      ['a wildcard one label too deep', await pki.issue(['*.example.com']), 'certificate_hostname_mismatch', 'certificate'],
      ['expired', await pki.issue(['refused.custom.example.com'], { days: 0 }), 'certificate_expired', 'certificate'],
      ['self-signed', await pki.selfSigned(['refused.custom.example.com']), 'certificate_untrusted', 'certificate'],
      ['weak key (RSA 1024)', await pki.issue(['refused.custom.example.com'], { key: 'rsa1024' }), 'certificate_key_too_weak', 'private_key'],
      ['P-521 key', await pki.issue(['refused.custom.example.com'], { key: 'ec521' }), 'certificate_key_unsupported', 'private_key'],
      ['Ed25519 key', await pki.issue(['refused.custom.example.com'], { key: 'ed25519' }), 'certificate_key_unsupported', 'private_key'],
    ];
    for (const [what, cert, code, param] of cases) {
      const res = await put(id, cert);
      expect([what, ...refusal(res)]).toEqual([what, 422, code, param]);
      expect(res.json().error.message.length).toBeGreaterThan(10);
    }
    expect(await rows(id)).toEqual([]);
  }, 60_000);

  it("refuses a certificate of the operator's CA when that CA is not configured (certificate_untrusted), a leaf without its intermediate, and one not yet valid", async () => {
    const cert = await pki.issue(['untrusted.custom.example.com']);
    // Checked as the API does, without the operator's CA: no public root signs our test PKI.
    const checked = checkCustomCertificate({ hostname: 'untrusted.custom.example.com', certificatePem: cert.chainPem, privateKeyPem: cert.keyPem, operatorCas: [] });
    expect(checked.ok ? 'accepted' : checked.code).toBe('certificate_untrusted');
    const withCa = checkCustomCertificate({ hostname: 'untrusted.custom.example.com', certificatePem: cert.chainPem, privateKeyPem: cert.keyPem, operatorCas: [new X509Certificate(pki.rootPem)] });
    expect(withCa.ok).toBe(true);
    // The leaf alone (no intermediate) does not build to the root: untrusted, with the hint.
    const leafOnly = checkCustomCertificate({ hostname: 'untrusted.custom.example.com', certificatePem: cert.certPem, privateKeyPem: cert.keyPem, operatorCas: [new X509Certificate(pki.rootPem)] });
    expect(leafOnly.ok ? 'accepted' : [leafOnly.code, /intermediate/.test(leafOnly.message)]).toEqual(['certificate_untrusted', true]);
    // Not yet valid (judged 10 days earlier) and the intermediate outside its validity then too.
    const early = checkCustomCertificate({ hostname: 'untrusted.custom.example.com', certificatePem: cert.chainPem, privateKeyPem: cert.keyPem, operatorCas: [new X509Certificate(pki.rootPem)], now: Date.now() - 10 * DAY });
    expect(early.ok ? 'accepted' : early.code).toBe('certificate_not_yet_valid');
  });

  it('stores a valid one with its key sealed, answers with source custom, history and the workflow signal; GET shows the same', async () => {
    const hostname = 'shop.custom.example.com';
    const id = await domain(hostname);
    const cert = await pki.issue([hostname, `www.${hostname}`], { key: 'rsa2048' });
    const res = await put(id, cert);
    expect(res.statusCode).toBe(200);
    const leaf = new X509Certificate(cert.certPem);
    const c = res.json().data.certificate;
    expect(c).toMatchObject({ source: 'custom', serial: leaf.serialNumber.toLowerCase(), method: null, not_after: new Date(leaf.validTo).toISOString(), not_before: new Date(leaf.validFrom).toISOString() });
    expect(c.issuer).toMatch(/Customer PKI Intermediate/);
    // renews_at: when a managed certificate takes over (3 days before not_after).
    expect(Date.parse(c.renews_at)).toBe(customTakeoverAt({ notBefore: Date.parse(leaf.validFrom), notAfter: Date.parse(leaf.validTo) }));
    expect(Date.parse(c.not_after) - Date.parse(c.renews_at)).toBe(3 * DAY);
    expect((await api.get(`/v1/domains/${id}`)).json().data.certificate).toEqual(c);
    const [stored] = await rows(id);
    expect(stored).toMatchObject({ source: 'custom', withdrawn_at: null, deleted_at: null });
    // The key is sealed for its row, the plaintext is nowhere in the row; the chain is leaf + intermediate.
    expect(stored.private_key_enc.toString('utf8')).not.toMatch(/PRIVATE KEY/);
    const opened = new SecretBox(t.config.encryptionKeys).open({ keyId: stored.key_id, ciphertext: stored.private_key_enc }, certificateKeyContext(stored.id)).toString('utf8');
    expect(leaf.checkPrivateKey((await import('node:crypto')).createPrivateKey(opened))).toBe(true);
    expect(stored.chain_pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(await t.database.db.anyFirst(sql.unsafe`select kind from certificate_history where domain_id = ${id} order by id`)).toEqual(['custom_installed']);
    expect(await t.database.db.anyFirst(sql.unsafe`select payload->>'signal' from workflow_outbox where workflow_id = ${`domain/${id}`} and kind = 'signal_domain'`)).toEqual(['certificate']);
  });

  it('a wildcard certificate covers a single-label hostname; a second PUT replaces the first (its key dropped)', async () => {
    const id = await domain('a.wild.custom.example.com');
    const first = await pki.issue(['*.wild.custom.example.com'], { key: 'ec384' });
    expect((await put(id, first)).statusCode).toBe(200);
    const second = await pki.issue(['a.wild.custom.example.com'], { direct: true });
    const res = await put(id, second);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.certificate.serial).toBe(new X509Certificate(second.certPem).serialNumber.toLowerCase());
    const all = await rows(id);
    expect(all.map((r) => [r.deleted_at !== null, r.private_key_enc !== null])).toEqual([[true, false], [false, true]]);
  });

  it('replays a PUT with the same Idempotency-Key; the same key with another body is idempotency_key_reused', async () => {
    const id = await domain('idem.custom.example.com');
    const cert = await pki.issue(['idem.custom.example.com']);
    const headers = { 'idempotency-key': 'put-cert-idem-1' };
    const first = await put(id, cert, headers);
    const again = await put(id, cert, headers);
    expect([first.statusCode, again.statusCode, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    expect(again.json()).toEqual(first.json());
    expect(await rows(id)).toHaveLength(1);
    expect(refusal(await put(id, await pki.issue(['idem.custom.example.com']), headers))).toEqual([422, 'idempotency_key_reused', undefined]);
    // And without a key: refused like every write.
    const bare = await t.app.inject({ method: 'PUT', url: `/v1/domains/${id}/certificate`, headers: auth, payload: { certificate: cert.chainPem, private_key: cert.keyPem } });
    expect(refusal(bare)[1]).toBe('idempotency_key_missing');
  });

  it('DELETE withdraws it (still served until a managed one is stored), signals the workflow; a second DELETE changes nothing', async () => {
    const id = await domain('removed.custom.example.com');
    const cert = await pki.issue(['removed.custom.example.com']);
    await put(id, cert);
    const res = await api.delete(`/v1/domains/${id}/certificate`);
    expect(res.statusCode).toBe(200);
    // Still the certificate served (no managed one yet): its facts stay on reads.
    expect(res.json().data.certificate.source).toBe('custom');
    const [row] = await rows(id);
    expect([row.withdrawn_at !== null, row.deleted_at, row.private_key_enc !== null]).toEqual([true, null, true]);
    expect(await t.database.db.anyFirst(sql.unsafe`select kind from certificate_history where domain_id = ${id} order by id`)).toEqual(['custom_installed', 'custom_removed']);
    // Again: nothing in place, nothing changes, the same answer.
    const again = await api.delete(`/v1/domains/${id}/certificate`);
    expect([again.statusCode, again.json().data.certificate.source]).toEqual([200, 'custom']);
    expect(await t.database.db.anyFirst(sql.unsafe`select kind from certificate_history where domain_id = ${id} order by id`)).toEqual(['custom_installed', 'custom_removed']);
    // A managed certificate stored later wins over the withdrawn one on reads (and at the edge).
    await t.database.db.query(sql.unsafe`insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, key_id)
      values ('crt_managed_after', ${id}, 'abc123', 'CN=Pebble', hg_now(), hg_now() + interval '90 days', 'pem', 'k')`);
    expect((await api.get(`/v1/domains/${id}`)).json().data.certificate).toMatchObject({ source: 'managed', serial: 'abc123' });
  });

  it('a custom certificate in place wins over a newer managed one on reads', async () => {
    const id = await domain('wins.custom.example.com');
    await put(id, await pki.issue(['wins.custom.example.com']));
    await t.database.db.query(sql.unsafe`insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, key_id)
      values ('crt_managed_newer', ${id}, 'def456', 'CN=Pebble', hg_now(), hg_now() + interval '90 days', 'pem', 'k')`);
    expect((await api.get(`/v1/domains/${id}`)).json().data.certificate.source).toBe('custom');
  });

  it('answers 404 domain_not_found for an unknown domain and 409 domain_deleted for a deleted one', async () => {
    const cert = await pki.issue(['gone.custom.example.com']);
    expect(refusal(await put('dom_00000000000000000000000000', cert))).toEqual([404, 'domain_not_found', 'id']);
    const id = await domain('gone.custom.example.com');
    await api.delete(`/v1/domains/${id}`);
    expect(refusal(await put(id, cert))).toEqual([409, 'domain_deleted', 'id']);
    expect(refusal(await api.delete(`/v1/domains/${id}/certificate`))).toEqual([409, 'domain_deleted', 'id']);
  });
});
