// Days of workflow time in seconds: the time-skipping test server fast-forwards timers while the
// real activities (DNS against the loopback server, Pebble, Postgres) run as usual.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { randomToken } from '../security/tokens.ts';
import { createHostgateWorker, type HostgateWorker } from '../worker/create-worker.ts';
import { startDomainWorkflow } from '../temporal/clients/domain.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { testServerPath } from './support/time-skipping.ts';
import { waitFor } from './support/wait.ts';
import { activityRuns, historyOfAllRuns } from './support/history.ts';


describe('domain lifecycle over days (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let acme: AcmeStack;
  let t: TestDatabase;
  let worker: HostgateWorker;
  const taskQueue = `timeskip-${randomToken(8)}`;

  beforeAll(async () => {
    // Short-lived certificates (120 s): renewal is due at 80 s.
    acme = await startAcmeStack({ certificateValidityPeriod: 120 });
    t = await createTestDatabase();
    await acme.serveChallenges(t.db);
  }, 120_000);
  // Each test gets its own test server (its clock) and worker (runUntil shuts a worker down).
  const newWorker = async () => {
    if (env) await env.teardown();
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
    worker = await createHostgateWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, db: t.db, config: acme.config, logger: createLogger('silent', 'timeskip') });
    return worker;
  };
  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await env?.teardown();
    await t?.drop();
    await acme?.close();
  });

  async function newDomain(hostname: string) {
    const org = await organizationsRepository(t.db).create({ name: hostname });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname, isApex: false });
    await startDomainWorkflow(env.client, taskQueue, { domainId: domain.id, organizationId: org.id, hostname, searchAttributes: false });
    return domain;
  }
  const status = async (id: string) => (await domainsRepository(t.db).getById(id))?.status;

  it('renews the certificate at two thirds of its lifetime', async () => {
    acme.dns.set('renew.customer-timeskip.test', [{ type: 'CNAME', value: EDGE }]);
    const w = await newWorker();
    const domain = await newDomain('renew.customer-timeskip.test');
    await w.runUntil(async () => {
      await waitFor('the domain to become active', async () => (await status(domain.id)) === 'active', 60_000, 200);
      expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${domain.id}`)).toBe(1);
      await env.sleep('90 seconds');
      await waitFor('a renewed certificate', async () => (await t.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${domain.id}`)) as number >= 2, 60_000, 200);
    });
    expect(await status(domain.id)).toBe('active');
    const serials = await t.db.anyFirst(sql.unsafe`select serial from certificates where domain_id = ${domain.id}`);
    expect(new Set(serials).size).toBe(serials.length);
    await env.client.workflow.getHandle(`domain/${domain.id}`).terminate('test finished');
  }, 180_000);

  it('gives up after 14 days without correct DNS: failed, with hostname.failed', async () => {
    const w = await newWorker();
    const domain = await newDomain('never.customer-timeskip.test');
    await w.runUntil(async () => {
      await waitFor('the first DNS check', async () => (await domainsRepository(t.db).getById(domain.id))?.verification);
      await env.sleep('13 days');
      expect(await status(domain.id)).toBe('pending_dns');
      await env.sleep('26 hours');
      await waitFor('the domain to fail', async () => (await status(domain.id)) === 'failed', 30_000);
    });
    const events = await t.db.anyFirst(sql.unsafe`select kind from events where domain_id = ${domain.id} order by created_at, id`);
    expect(events).toEqual(['hostname.created', 'hostname.failed']);
    // The periodic checks are the worker's DNS checker's (its schedule in Postgres, on real
    // time), not the workflow's (issue 26): one run, no DNS check in its history, one timer —
    // the 14 days — where there were ≈ 14 × 24 checks with a timer each, over 8+ runs.
    const history = await historyOfAllRuns(env.client, `domain/${domain.id}`);
    const runs = history.filter((e) => e.workflowExecutionStartedEventAttributes).length;
    expect(runs).toBe(1);
    const checks = activityRuns(history).filter((name) => name === 'checkDns' || name === 'verifyDns' || name === 'verifyDnsAndIssue' || name === 'recheckDns').length;
    expect(checks).toBe(0);
    expect(history.filter((e) => e.timerStartedEventAttributes).length).toBe(1);
    // Done with it: a workflow left waiting would hold the test server's clock in later tests.
    await env.client.workflow.getHandle(`domain/${domain.id}`).terminate('test finished');
  }, 180_000);
});
