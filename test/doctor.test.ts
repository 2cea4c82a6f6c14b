// `hostgate doctor` (issue 18) on a correct setup — the suite's Postgres and Temporal, a real Pebble
// ACME directory, a loopback DNS server, listening edge ports — and with each problem it names
// provoked for real: a wrong Postgres port, an unmigrated database, Temporal unreachable, no edge
// address, an edge port closed, the ACME directory unreachable, a dead DNS server, dev keys in
// production.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from '../cli/hostgate.ts';
import { generateEncryptionKey } from '../security/secret-box.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { startPebble, type Pebble } from './support/pebble.ts';
import { freePort } from './support/ports.ts';
import { temporalAddress } from './support/temporal.ts';

const CNAME_TARGET = 'edge.doctor-test.example';

describe('hostgate doctor', () => {
  let database: TestDatabase;
  let unmigrated: TestDatabase;
  let dns: TestDnsServer;
  let pebble: Pebble;
  let edge: net.Server[] = [];
  let dataDir: string;
  let env: Record<string, string>;

  const listen = async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    edge.push(server);
    return (server.address() as net.AddressInfo).port;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    unmigrated = await createTestDatabase({ migrated: false });
    const connection = await connectTemporal(temporalAddress());
    await ensureSearchAttributes(connection, 'default');
    await connection.close();
    dns = await startTestDnsServer();
    dns.set(CNAME_TARGET, [{ type: 'A', value: '127.0.0.1' }]);
    pebble = await startPebble({ dnsServer: dns.server });
    dataDir = await mkdtemp(path.join(tmpdir(), 'hg-doctor-'));
    env = {
      HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local',
      HOSTGATE_DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporalAddress(),
      TEMPORAL_NAMESPACE: 'default',
      HOSTGATE_ENCRYPTION_KEYS: `prod1:${generateEncryptionKey()}`,
      HOSTGATE_EDGE_IPV4: '127.0.0.1',
      HOSTGATE_CNAME_TARGET: CNAME_TARGET,
      HOSTGATE_EDGE_HTTPS_PORT: String(await listen()),
      HOSTGATE_HTTP_PORT: String(await listen()),
      HOSTGATE_ACME_DIRECTORY_URL: pebble.directoryUrl,
      HOSTGATE_ACME_CA_BUNDLE: pebble.caBundlePath,
      HOSTGATE_ACME_EMAIL: 'ops@doctor-test.example',
      HOSTGATE_DNS_SERVERS: dns.server,
      LOG_LEVEL: 'silent',
    };
  }, 60_000);
  afterAll(async () => {
    for (const s of edge) await new Promise((r) => s.close(r));
    await pebble?.stop();
    await dns?.close();
    await database?.drop();
    await unmigrated?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function doctor(overrides: Record<string, string> = {}) {
    const lines: string[] = [];
    const started = Date.now();
    const code = await run(['doctor', '--timeout-ms', '1000'], (l) => lines.push(l), { ...env, ...overrides });
    return { code, out: lines.join('\n'), lines, ms: Date.now() - started };
  }
  const problemLine = (out: string, name: string) => out.split('\n').find((l) => l.startsWith('PROBLEM') && l.includes(`  ${name}:`));

  it('a correct production setup: every check ok, exit 0 (also as a process)', async () => {
    const r = await doctor();
    expect(r.out).not.toMatch(/PROBLEM|warning/);
    for (const name of ['database', 'temporal', 'encryption keys', 'outbound targets', 'edge addresses', 'edge HTTPS port', 'edge HTTP port', 'ACME directory', 'DNS resolvers']) {
      expect([name, r.lines.some((l) => l.startsWith('ok') && l.includes(`  ${name}:`))]).toEqual([name, true]);
    }
    expect(r.out).toMatch(/migrations current/);
    expect(r.out).toMatch(/namespace "default" with our \d+ search attributes/);
    expect(r.code).toBe(0);
    // As a process: the exit code is the verdict (async spawn: the DNS server runs in this process).
    // A longer per-check bound than in process: a fresh process loads its modules while the checks'
    // deadlines run, and on a loaded CI machine (load 14) every check of a 1 s bound timed out.
    const child = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const p = execFile(process.execPath, ['cli/hostgate.ts', 'doctor', '--timeout-ms', '8000'], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 }, (_error, stdout) => resolve({ code: p.exitCode, stdout }));
    });
    expect([child.code, child.stdout]).toEqual([0, expect.stringContaining('nothing blocks issuance or serving')]);
  }, 60_000);

  it.each([
    ['a wrong DATABASE_URL port', async () => ({ DATABASE_URL: database.url.replace(/:\d+\//, `:${await freePort()}/`) }), 'database', /cannot reach Postgres at 127\.0\.0\.1:\d+/, /check DATABASE_URL/],
    ['an unmigrated database', async () => ({ DATABASE_URL: unmigrated.url }), 'database', /schema is at migration 0 of \d+/, /hostgate migrate/],
    ['Temporal unreachable', async () => ({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` }), 'temporal', /cannot reach Temporal at 127\.0\.0\.1:\d+/, /TEMPORAL_ADDRESS/],
    ['no edge address', async () => ({ HOSTGATE_EDGE_IPV4: '' }), 'edge addresses', /HOSTGATE_EDGE_IPV4/, /public addresses/],
    ['the edge HTTPS port closed', async () => ({ HOSTGATE_EDGE_HTTPS_PORT: String(await freePort()) }), 'edge HTTPS port', /not answering: 127\.0\.0\.1:\d+/, /HOSTGATE_EDGE_HTTPS_PORT/],
    ['the ACME directory unreachable', async () => ({ HOSTGATE_ACME_DIRECTORY_URL: `https://127.0.0.1:${await freePort()}/dir` }), 'ACME directory', /cannot reach https:\/\/127\.0\.0\.1:\d+\/dir/, /HOSTGATE_ACME_DIRECTORY_URL/],
    ['a dead DNS server', async () => ({ HOSTGATE_DNS_SERVERS: `${dns.server},127.0.0.1:${await freePort()}` }), 'DNS resolvers', /not answering: 127\.0\.0\.1:\d+/, /HOSTGATE_DNS_SERVERS/],
  ])('%s: named with its fix, exit 1, within the time bound', async (_label, change, name, detail, fix) => {
    const r = await doctor(await change());
    const line = problemLine(r.out, name);
    expect([name, line]).toEqual([name, expect.stringMatching(detail)]);
    expect(r.lines[r.lines.indexOf(line!) + 1]).toMatch(fix);
    expect(r.code).toBe(1);
    // Only that check fails (the others still pass), and nothing waited past its bound.
    expect(r.lines.filter((l) => l.startsWith('PROBLEM')).length).toBe(name === 'edge addresses' ? 2 : 1);
    expect(r.ms).toBeLessThan(8000);
    expect(r.out).not.toContain(database.url); // a URL may carry a password: never printed whole
  }, 30_000);

  it('a CNAME target under localhost (set, or derived from the default service domain): named with its fix', async () => {
    for (const overrides of [{ HOSTGATE_CNAME_TARGET: 'edge.hostgate.localhost' }, { HOSTGATE_CNAME_TARGET: '', HOSTGATE_SERVICE_DOMAIN: '' }] as Record<string, string>[]) {
      const r = await doctor(overrides);
      const line = problemLine(r.out, 'edge addresses');
      expect(line).toMatch(/HOSTGATE_CNAME_TARGET is edge\.hostgate\.localhost \(edge\.<HOSTGATE_SERVICE_DOMAIN> when unset\), a localhost name customers cannot CNAME to/);
      expect(line).not.toMatch(/HOSTGATE_EDGE_IPV4/);
      expect(r.lines[r.lines.indexOf(line!) + 1]).toMatch(/HOSTGATE_CNAME_TARGET to a name resolving to them/);
      expect(r.code).toBe(1);
    }
  }, 30_000);

  it('two CAs, the second unreachable: a warning named after it (orders fail over to the first), not a blocker; both unreachable: blockers', async () => {
    const down = `https://127.0.0.1:${await freePort()}/dir`;
    const cas = (firstUrl: string) => JSON.stringify([
      { name: 'pebble', url: firstUrl, ca_bundle: pebble.caBundlePath, caa: ['letsencrypt.org'] },
      { name: 'backup', url: down, caa: ['pki.goog'] },
    ]);
    const r = await doctor({ HOSTGATE_ACME_DIRECTORIES: cas(pebble.directoryUrl) });
    const line = r.lines.find((l) => l.startsWith('warning') && l.includes('  ACME directory backup:'));
    expect(line).toMatch(/cannot reach https:\/\/127\.0\.0\.1:\d+\/dir/);
    expect(r.lines[r.lines.indexOf(line!) + 1]).toMatch(/HOSTGATE_ACME_DIRECTORIES/);
    expect(r.out).toMatch(/ACME directory pebble/);
    expect(r.code).toBe(0);
    const both = await doctor({ HOSTGATE_ACME_DIRECTORIES: cas(`https://127.0.0.1:${await freePort()}/dir`) });
    expect(problemLine(both.out, 'ACME directory pebble')).toMatch(/cannot reach/);
    expect(problemLine(both.out, 'ACME directory backup')).toMatch(/cannot reach/);
    expect(both.code).toBe(1);
  }, 30_000);

  it('private targets allowed in production: a warning with its fix, not a blocker', async () => {
    const r = await doctor({ HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' });
    const line = r.lines.find((l) => l.startsWith('warning') && l.includes('  outbound targets:'));
    expect(line).toMatch(/HOSTGATE_ALLOW_PRIVATE_TARGETS=true: webhooks and destinations may name loopback/);
    expect(r.lines[r.lines.indexOf(line!) + 1]).toMatch(/unset HOSTGATE_ALLOW_PRIVATE_TARGETS in production/);
    expect(r.code).toBe(0);
  }, 30_000);

  it('the development key that `npm start` generated is refused in production', async () => {
    const devKey = `local1:${generateEncryptionKey()}`;
    await writeFile(path.join(dataDir, 'encryption-keys'), `${devKey}\n`);
    const r = await doctor({ HOSTGATE_ENCRYPTION_KEYS: devKey });
    expect(problemLine(r.out, 'encryption keys')).toMatch(/generated for development/);
    expect(r.code).toBe(1);
    // Compared as keys, not as text: the same key under another id than local1, spelled without its
    // base64 padding, is still the development key.
    const bytes = generateEncryptionKey();
    await writeFile(path.join(dataDir, 'encryption-keys'), `dev9:${bytes}\n`);
    const respelled = await doctor({ HOSTGATE_ENCRYPTION_KEYS: `dev9:${bytes.replace(/=+$/, '')}` });
    expect(problemLine(respelled.out, 'encryption keys')).toMatch(/generated for development/);
    expect(respelled.code).toBe(1);
    // A production key first, the development one after it (rotation in progress) is not the development setting.
    const rotated = await doctor({ HOSTGATE_ENCRYPTION_KEYS: `prod2:${generateEncryptionKey()},dev9:${bytes}` });
    expect(rotated.lines.find((l) => l.includes('  encryption keys:'))).toMatch(/^ok .*2 key\(s\); "prod2" encrypts/);
    const unset = await doctor({ HOSTGATE_ENCRYPTION_KEYS: '' });
    expect(problemLine(unset.out, 'encryption keys')).toMatch(/HOSTGATE_ENCRYPTION_KEYS is not set/);
    expect(unset.code).toBe(1);
  }, 30_000);
});
