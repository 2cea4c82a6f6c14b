// The customer's own certificate over weeks (issue 22, part B), in the time-skipping environment
// with the real activities (Postgres, DNS on loopback, Pebble): hostname.certificate_expiring 14
// and 3 days before it lapses, and — the domain's DNS pointing here — a managed certificate
// ordered at the last notice, replacing it; with DNS elsewhere, the notices but no order.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { certificateKeyContext } from '../acme/keys.ts';
import { sql } from '../db/pool.ts';
import { newId } from '../db/ids.ts';
import { customCertificatesRepository } from '../db/repositories/custom-certificates.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { checkCustomCertificate } from '../model/custom-certificate.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';
import { startDomainWorkflow } from '../temporal/clients/domain.ts';
import { createHostgateWorker, type HostgateWorker } from '../worker/create-worker.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createCertFactory, type CertFactory } from './support/custom-certs.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { testServerPath } from './support/time-skipping.ts';
import { waitFor } from './support/wait.ts';
import { activityRuns, historyOfAllRuns } from './support/history.ts';

describe("the customer's own certificate over weeks (time-skipping)", () => {
  let env: TestWorkflowEnvironment;
  let acme: AcmeStack;
  let t: TestDatabase;
  let pki: CertFactory;
  let worker: HostgateWorker;
  const taskQueue = `custom-timeskip-${randomToken(8)}`;

  beforeAll(async () => {
    acme = await startAcmeStack();
    pki = await createCertFactory();
    t = await createTestDatabase();
    await acme.serveChallenges(t.db);
  }, 120_000);
  const newWorker = async () => {
    if (env) await env.teardown();
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
    worker = await createHostgateWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, db: t.db, config: acme.config, logger: createLogger('silent', 'custom-timeskip') });
    return worker;
  };
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await env?.teardown();
    await t?.drop();
    await acme?.close();
    await pki?.close();
  });

  /** An active domain with a 60-day custom certificate in place (as the PUT stores it), and its workflow. */
  async function activeWithCustom(hostname: string) {
    const org = await organizationsRepository(t.db).create({ name: hostname });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname, isApex: false });
    await t.db.query(sql.unsafe`update domains set status = 'active', status_seq = status_seq + 1 where id = ${domain.id}`);
    const issued = await pki.issue([hostname], { days: 60 });
    const checked = checkCustomCertificate({ hostname, certificatePem: issued.chainPem, privateKeyPem: issued.keyPem, operatorCas: [new X509Certificate(pki.rootPem)] });
    if (!checked.ok) throw new Error(checked.message);
    const box = new SecretBox(acme.config.encryptionKeys);
    await t.db.transaction((tx) => customCertificatesRepository(t.db).install(tx, org.id, domain.id, newId('certificate'), checked.value, (id) => box.seal(checked.value.keyPem, certificateKeyContext(id))));
    await startDomainWorkflow(env.client, taskQueue, { domainId: domain.id, organizationId: org.id, hostname, searchAttributes: false });
    return { id: domain.id, serial: checked.value.serial };
  }
  const expiring = async (id: string) => (await t.db.anyFirst(sql.unsafe`select data from events where domain_id = ${id} and kind = 'hostname.certificate_expiring' order by created_at, id`) as any[])
    .map((e) => [e.days_left, e.certificate.source, e.certificate.serial]);
  const history = async (id: string) => await t.db.anyFirst(sql.unsafe`select kind from certificate_history where domain_id = ${id} order by id`);
  const managed = async (id: string) => Number(await t.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${id} and source = 'managed'`));

  it('DNS points here: expiring at 14 and 3 days, then a managed certificate replaces it', async () => {
    const hostname = 'shop.custom-timeskip.test';
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    const w = await newWorker();
    const { id, serial } = await activeWithCustom(hostname);
    await w.runUntil(async () => {
      await env.sleep('40 days');
      // Nothing yet at day 40; no order either.
      expect(await expiring(id)).toEqual([]);
      await env.sleep('7 days');
      await waitFor('the 14-day notice', async () => (await expiring(id)).length === 1, 30_000, 200);
      expect(await expiring(id)).toEqual([[14, 'custom', serial]]);
      expect(await managed(id)).toBe(0);
      await env.sleep('11 days');
      await waitFor('a managed certificate', async () => (await managed(id)) === 1, 60_000, 200);
    });
    expect(await expiring(id)).toEqual([[14, 'custom', serial], [3, 'custom', serial]]);
    expect(await history(id)).toEqual(['custom_installed', 'custom_lapsing', 'renewed']);
    const current = await t.db.one(sql.unsafe`select d.status, c.source from domains d join certificates c on c.domain_id = d.id and c.deleted_at is null
      where d.id = ${id} order by (c.source = 'custom' and c.withdrawn_at is null) desc, c.created_at desc limit 1`) as { status: string; source: string };
    expect(current).toEqual({ status: 'active', source: 'managed' });
    await env.client.workflow.getHandle(`domain/${id}`).terminate('test finished');
  }, 300_000);

  it('DNS elsewhere: the notices, and no managed order', async () => {
    const w = await newWorker();
    const { id, serial } = await activeWithCustom('elsewhere.custom-timeskip.test');
    await w.runUntil(async () => {
      await env.sleep('58 days');
      await waitFor('the 3-day notice', async () => (await expiring(id)).length === 2, 30_000, 200);
      // Past its expiry too: DNS is asked again at the re-check pace (6 h), not in a loop.
      await env.sleep('5 days');
    });
    const checks = activityRuns(await historyOfAllRuns(env.client, `domain/${id}`)).filter((name) => name === 'checkDns').length;
    expect(checks).toBeGreaterThan(200);
    expect(checks).toBeLessThan(300);
    expect(await expiring(id)).toEqual([[14, 'custom', serial], [3, 'custom', serial]]);
    expect(await managed(id)).toBe(0);
    expect(await history(id)).toEqual(['custom_installed']);
    await env.client.workflow.getHandle(`domain/${id}`).terminate('test finished');
  }, 300_000);
});
