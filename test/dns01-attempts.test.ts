// One DNS-01 attempt of a zero-downtime move (activities/certificates/dns01.ts) against a real CA
// (Pebble), Postgres and the challenge zone's tables, about what it leaves behind: an attempt that
// overran its time may still be finishing while its retry's TXT value sits at the same name — it
// must withdraw its own value only — and a cancelled attempt stops at its next wait.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Resolver } from 'node:dns/promises';
import { createAcmeClients } from '../acme/client.ts';
import { sql } from '../db/pool.ts';
import { acmeAccountsRepository } from '../db/repositories/acme-accounts.ts';
import { certificatesRepository } from '../db/repositories/certificates.ts';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { createDns01Issuer } from '../activities/certificates/dns01.ts';
import { createLogger } from '../logging/logger.ts';
import { delegationTarget } from '../model/domain-moves.ts';
import { SecretBox } from '../security/secret-box.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { startPebble, type Pebble } from './support/pebble.ts';
import { freePort } from './support/ports.ts';

const ZONE = 'challenges.hostgate.test';
/** What the retry of the same move published at the same name (a dns-01 value is base64url). */
const RETRY_VALUE = 'retry-attempts-value-aaaaaaaaaaaaaaaaaaaaaaaa';

describe('dns-01 attempt', () => {
  let t: TestDatabase;
  let dns: TestDnsServer;
  let pebble: Pebble;
  let issue: ReturnType<typeof createDns01Issuer>;
  let patientIssue: ReturnType<typeof createDns01Issuer>;
  const logger = createLogger('silent', 'test-dns01');

  const txtAt = async (name: string) => (await t.db.anyFirst(sql.unsafe`select content from pdns.records where name = ${name} and type = 'TXT' order by content`)) as string[];

  beforeAll(async () => {
    t = await createTestDatabase();
    dns = await startTestDnsServer();
    pebble = await startPebble({ dnsServer: dns.server });
    const secretBox = new SecretBox(testConfig().encryptionKeys);
    const clients = createAcmeClients({
      directoryUrl: pebble.directoryUrl, caBundlePath: pebble.caBundlePath, email: undefined,
      accounts: acmeAccountsRepository(t.db), secretBox, logger, ca: (_what, call) => call(),
    });
    // "Our" challenge DNS server does not answer (nothing listens there): the attempt fails after
    // publishing, at the check that our server answers its value — a failure path that ends in
    // the withdraw, without the CA's validation.
    const ourServer = new Resolver({ timeout: 200, tries: 1 });
    ourServer.setServers([`127.0.0.1:${await freePort()}`]);
    const deps = {
      client: clients.get, zone: challengeZoneRepository(t.db), challengeZone: ZONE, ourServer,
      certificates: certificatesRepository(t.db), secretBox, logger, waitBudgetMs: 30_000,
    };
    issue = createDns01Issuer({ ...deps, publishBudgetMs: 300 });
    patientIssue = createDns01Issuer({ ...deps, publishBudgetMs: 60_000 });
  }, 60_000);

  afterAll(async () => {
    await pebble?.stop();
    await dns?.close();
    await t?.drop();
  });

  it('withdraws only the TXT value it published, not its retry\'s at the same name', async () => {
    const label = 'lbl-withdraw';
    const name = delegationTarget(label, ZONE);
    await challengeZoneRepository(t.db).publish(ZONE, name, RETRY_VALUE);
    const outcome = await issue({ domainId: 'dom_withdraw', hostname: 'withdraw.move.test', challengeLabel: label });
    expect(outcome).toMatchObject({ ok: false, refused: false, code: 'challenge_not_published' });
    expect(await txtAt(name)).toEqual([`"${RETRY_VALUE}"`]);
  });

  it('stops at its next wait once cancelled, and withdraws its value', async () => {
    const label = 'lbl-cancel';
    const name = delegationTarget(label, ZONE);
    await challengeZoneRepository(t.db).publish(ZONE, name, RETRY_VALUE);
    const controller = new AbortController();
    const started = Date.now();
    const running = patientIssue({ domainId: 'dom_cancel', hostname: 'cancel.move.test', challengeLabel: label, signal: controller.signal });
    // Waiting for our server to answer its value (up to 60 s here) by then.
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await txtAt(name)).length).toBe(2);
    controller.abort();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, refused: false, code: 'attempt_abandoned' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await txtAt(name)).toEqual([`"${RETRY_VALUE}"`]);
  });
});
