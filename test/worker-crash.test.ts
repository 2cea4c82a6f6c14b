// The worker process is SIGKILLed in the middle of certificate issuance and started again: the
// domain still reaches active, with exactly one certificate (activities resume, not repeat).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';
import { workerProcesses } from './support/worker-process.ts';

describe('worker killed during issuance', () => {
  let acme: AcmeStack;
  let t: TestDatabase;
  let temporal: TestTemporal;
  const workers = workerProcesses(() => ({
    databaseUrl: t.url, temporalAddress: temporal.address, taskQueue: temporal.taskQueue,
    bundleFile: 'test-workflow-bundle.js', env: acme.configOverrides,
  }));
  const startWorker = () => workers.start();

  beforeAll(async () => {
    acme = await startAcmeStack();
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    await acme.serveChallenges(t.db);
  });
  afterAll(async () => {
    workers.kill();
    await temporal?.close();
    await t?.drop();
    await acme?.close();
  });

  it('reaches active with exactly one certificate after a SIGKILL mid-issuance', async () => {
    const org = await organizationsRepository(t.db).create({ name: 'Crash' });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    acme.dns.set('shop.crash.test', [{ type: 'CNAME', value: EDGE }]);
    // The CA cannot validate yet, so issuance is in flight (order placed, validation pending).
    await acme.stopChallenges();
    const first = startWorker();
    const { domain, outboxId } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: 'shop.crash.test', isApex: false });
    const dispatcher = createOutboxDispatcher({ db: t.db, client: temporal.client, taskQueue: temporal.taskQueue, logger: createLogger('silent', 'test') });
    await dispatcher.kick([outboxId]);
    // At least one: with the challenges stopped the one-attempt issuance is refused at once, and a
    // verify already on its way (the DNS checker's move) can place a second order within the poll's
    // 100 ms; what matters is that the kill lands after an order.
    await waitFor('an ACME order to be placed', async () => Number(await t.db.oneFirst(sql.unsafe`select count(*)::int from acme_orders where domain_id = ${domain.id}`)) >= 1, 60_000, 100)
      .catch((e: unknown) => { throw new Error(`${String(e)}\nworker output:\n${workers.output()}`); });

    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await acme.serveChallenges(t.db);
    startWorker();
    // Wake the workflow's backoff so the test does not wait a minute.
    await t.db.query(sql.unsafe`insert into workflow_outbox (kind, workflow_id, payload) values ('signal_domain', ${`domain/${domain.id}`}, ${sql.jsonb({ signal: 'verify' })})`);
    await dispatcher.kick();
    await waitFor('the domain to become active', async () => (await domainsRepository(t.db).getById(domain.id))?.status === 'active', 90_000, 200)
      .catch((e: unknown) => { throw new Error(`${String(e)}\nworker output:\n${workers.output()}`); });
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${domain.id}`)).toBe(1);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from acme_orders where domain_id = ${domain.id} and status = 'completed'`)).toBe(1);
    await dispatcher.stop();
  }, 180_000);
});
