// The edge's TLS defaults follow Mozilla's "intermediate" profile (issue 23): testssl.sh (Debian
// package `testssl.sh`) against real HAProxy finds no known vulnerability and no weak cipher class
// offered — in particular no CBC cipher in TLS 1.2 (it flagged those as potentially LUCKY13).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';

interface Finding { id: string; severity: string; finding: string }

/** Cipher classes that must be "not offered" (testssl.sh 3.0 ids; AVERAGE: the obsolete CBC ones). */
const WEAK_CLASSES = ['cipherlist_NULL', 'cipherlist_aNULL', 'cipherlist_EXPORT', 'cipherlist_LOW', 'cipherlist_3DES_IDEA', 'cipherlist_AVERAGE'];

describe('edge TLS profile (testssl.sh)', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test']);
    dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    await insertDomain(database.db, { hostname: 'tls.profile.test', destinationHost: 'app.vendor.test', certificate: await customerCa.issue(['tls.profile.test']) });
    edge = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath });
    dir = await mkdtemp(path.join(tmpdir(), 'hg-testssl-'));
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await origin?.close();
    await originCa?.close();
    await customerCa?.close();
    await dns?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('offers TLS 1.2/1.3 AEAD ciphers only and has no known vulnerability', async () => {
    expect((await edgeGet(edge.port, 'tls.profile.test', { ca: customerCa.pem })).status).toBe(200);
    const json = path.join(dir, 'out.json');
    // -p protocols, -s cipher classes, -U vulnerabilities; the hostname's SNI on 127.0.0.1.
    await promisify(execFile)('testssl', ['--quiet', '--color', '0', '--warnings', 'off', '--sneaky', '--ip', '127.0.0.1', '-p', '-s', '-U', '--jsonfile', json, `tls.profile.test:${edge.port}`], { timeout: 280_000, maxBuffer: 16 * 1024 * 1024 })
      .catch((error: { code?: number }) => {
        // testssl.sh exits non-zero when it finds something; the JSON says what.
        if (typeof error.code !== 'number') throw error;
      });
    const findings = JSON.parse(await readFile(json, 'utf8')) as Finding[];
    const byId = new Map(findings.map((f) => [f.id, f.finding]));
    expect(findings.filter((f) => /VULNERABLE/.test(f.finding) && !/not vulnerable/i.test(f.finding)).map((f) => `${f.id}: ${f.finding}`)).toEqual([]);
    expect(WEAK_CLASSES.map((id) => [id, byId.get(id)])).toEqual(WEAK_CLASSES.map((id) => [id, 'not offered']));
    expect(byId.get('LUCKY13')).toMatch(/^not vulnerable/);
    expect([byId.get('SSLv2'), byId.get('SSLv3'), byId.get('TLS1'), byId.get('TLS1_1')]).toEqual(['not offered', 'not offered', 'not offered', 'not offered']);
    expect(byId.get('TLS1_2')).toMatch(/^offered/);
    expect(byId.get('TLS1_3')).toMatch(/^offered/);
  }, 300_000);
});
