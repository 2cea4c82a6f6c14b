// `npm start` runs PowerDNS for a local challenge zone (issue 22): the module it uses, on a real
// pdns_server reading a test database's `pdns` schema, on a free loopback port.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Resolver } from 'node:dns/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { challengeSettings, checkChallengeDns } from '../cli/doctor.ts';
import { testConfig } from './support/app.ts';
import { LOCAL_CHALLENGE_ZONE, powerDnsConfig, powerDnsInstalled, startLocalPowerDns, type LocalPowerDns } from '../local-stack/powerdns.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { freePort } from './support/ports.ts';

describe('local PowerDNS (npm start)', () => {
  let t: TestDatabase;
  let dataDir: string;
  let pdns: LocalPowerDns | null = null;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(tmpdir(), 'hg-local-pdns-'));
  });
  afterAll(async () => {
    await pdns?.stop();
    await t?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes the settings PowerDNS needs beside other services (own port, socket dir, no security poll)', () => {
    const conf = powerDnsConfig('postgres://hg:s%40cret@db.internal:6543/hostgate', 5354, '/var/lib/hostgate/pdns');
    expect(conf.split('\n')).toEqual(expect.arrayContaining([
      'launch=gpgsql', 'gpgsql-host=db.internal', 'gpgsql-port=6543', 'gpgsql-user=hg', 'gpgsql-password=s@cret', 'gpgsql-dbname=hostgate',
      "gpgsql-extra-connection-parameters=options='-c search_path=pdns'", 'local-address=127.0.0.1', 'local-port=5354',
      'socket-dir=/var/lib/hostgate/pdns', 'security-poll-suffix=',
    ]));
  });

  it('answers the local challenge zone from Postgres, and a challenge TXT as soon as it is written', async () => {
    expect(powerDnsInstalled()).toEqual({ ok: true });
    await challengeZoneRepository(t.db).ensureZone(LOCAL_CHALLENGE_ZONE);
    const port = await freePort();
    pdns = await startLocalPowerDns({ databaseUrl: t.url, dataDir, port, zone: LOCAL_CHALLENGE_ZONE });
    expect(await readFile(path.join(dataDir, 'pdns', 'pdns.conf'), 'utf8')).toContain(`local-port=${port}`);
    const resolver = new Resolver({ timeout: 1_000, tries: 2 });
    resolver.setServers([pdns.server]);
    expect((await resolver.resolveSoa(LOCAL_CHALLENGE_ZONE)).nsname).toBe(`ns1.${LOCAL_CHALLENGE_ZONE}`);
    const name = `abc123.${LOCAL_CHALLENGE_ZONE}`;
    await challengeZoneRepository(t.db).publish(LOCAL_CHALLENGE_ZONE, name, 'value-1');
    expect(await resolver.resolveTxt(name)).toEqual([['value-1']]);
    // hostgate doctor finds it through npm start's data dir (no HOSTGATE_CHALLENGE_ZONE set).
    const config = testConfig({ HOSTGATE_DATA_DIR: dataDir, HOSTGATE_PDNS_PORT: String(port) });
    expect(config.moves.challengeZone).toBeUndefined();
    expect(await checkChallengeDns(challengeSettings(config), 2_000)).toMatchObject({ ok: true, detail: expect.stringContaining(LOCAL_CHALLENGE_ZONE) });
    expect(challengeSettings(testConfig({ HOSTGATE_DATA_DIR: path.join(dataDir, 'elsewhere') })).moves.challengeZone).toBeUndefined();
    await pdns.stop();
    expect(pdns.process.exitCode !== null || pdns.process.signalCode !== null).toBe(true);
    pdns = null;
  });
});
