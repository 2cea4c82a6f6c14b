// `hostgate domains certificate put|delete` (issue 22, part B): the operator's way to the API's
// PUT/DELETE /v1/domains/{id}/certificate, with the same checks and storage, on a real database.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run, UsageError } from '../cli/hostgate.ts';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { testEncryptionKeys } from './support/app.ts';
import { createCertFactory, type CertFactory } from './support/custom-certs.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

describe('operator CLI: domains certificate', () => {
  let t: TestDatabase;
  let pki: CertFactory;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    pki = await createCertFactory();
    dir = path.dirname(pki.rootPath);
    env = { DATABASE_URL: t.url, HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys, HOSTGATE_CUSTOM_CERT_CA_FILE: pki.rootPath };
  });
  afterAll(async () => { await t?.drop(); await pki?.close(); });

  it('puts a certificate in place (same checks as the API), refuses a bad one with its code, and takes it out again', async () => {
    const org = await organizationsRepository(t.db).create({ name: 'cli certs' });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: 'shop.cli-custom.example', isApex: false });
    const good = await pki.issue(['shop.cli-custom.example']);
    const wrong = await pki.issue(['other.cli-custom.example']);
    await writeFile(path.join(dir, 'good.pem'), good.chainPem);
    await writeFile(path.join(dir, 'good.key'), good.keyPem);
    await writeFile(path.join(dir, 'wrong.pem'), wrong.chainPem);
    await writeFile(path.join(dir, 'wrong.key'), wrong.keyPem);
    const lines: string[] = [];
    await expect(run(['domains', 'certificate', 'put', domain.id, '--cert', path.join(dir, 'wrong.pem'), '--key', path.join(dir, 'wrong.key')], (l) => lines.push(l), env))
      .rejects.toThrow(new UsageError(`refused (certificate_hostname_mismatch): the certificate's names (DNS:other.cli-custom.example) do not cover shop.cli-custom.example`));
    await run(['domains', 'certificate', 'put', domain.id, '--cert', path.join(dir, 'good.pem'), '--key', path.join(dir, 'good.key')], (l) => lines.push(l), env);
    expect(lines.at(-1)).toMatch(/^custom certificate crt_\w+ \(serial [0-9a-f]+, valid until .*\) in place for shop.cli-custom.example/);
    expect(await t.db.anyFirst(sql.unsafe`select source from certificates where domain_id = ${domain.id} and withdrawn_at is null`)).toEqual(['custom']);
    expect(await t.db.anyFirst(sql.unsafe`select payload->>'signal' from workflow_outbox where workflow_id = ${`domain/${domain.id}`} and kind = 'signal_domain'`)).toEqual(['certificate']);
    await run(['domains', 'certificate', 'delete', domain.id], (l) => lines.push(l), env);
    expect(lines.at(-1)).toMatch(/taken out of place; a managed one is ordered/);
    await run(['domains', 'certificate', 'delete', domain.id], (l) => lines.push(l), env);
    expect(lines.at(-1)).toMatch(/has no custom certificate in place; nothing changed/);
    await expect(run(['domains', 'certificate', 'put', domain.id], () => undefined, env)).rejects.toThrow(/needs --cert <chain.pem> and --key <key.pem>/);
  });
});
