// The edge as tests run it: the real agent process (edge/agent-main.ts) driving a real HAProxy
// on a free port, plus rows to serve (written as the certificate activities write them) and a
// TLS client that says which certificate it was given.
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { newId } from '../../db/ids.ts';
import { sql, type Db } from '../../db/pool.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { organizationsRepository } from '../../db/repositories/organizations.ts';
import { isOurHaproxy } from '../../edge/agent/haproxy-supervisor.ts';
import { certificateKeyContext } from '../../edge/agent/snapshot.ts';
import { SecretBox } from '../../security/secret-box.ts';
import { testConfig, testEncryptionKeys } from './app.ts';
import { freePort } from './ports.ts';

export interface EdgeProcess {
  port: number;
  stateDir: string;
  edgeId: string;
  /** Parsed JSON log lines of the agent so far. */
  logs: Record<string, unknown>[];
  /** Starts the agent (again) over the same state directory. */
  start(): Promise<void>;
  /** SIGKILL: the agent dies at once, HAProxy keeps running. */
  kill(): Promise<void>;
  /** SIGTERM: the agent stops HAProxy and exits; resolves with its exit code (null: not running or killed). */
  stop(): Promise<number | null>;
  /** Removes the state directory (after stop). */
  cleanup(): Promise<void>;
  waitForLog(msg: string, after?: number, timeoutMs?: number): Promise<Record<string, unknown>>;
}

export async function startEdgeProcess(options: {
  databaseUrl: string;
  resolvers: string;
  originCaFile: string;
  env?: Record<string, string>;
  /** How long the agent may take to be ready (boot with many certificates takes longer). */
  readyTimeoutMs?: number;
}): Promise<EdgeProcess> {
  const port = await freePort();
  const stateDir = await mkdtemp(path.join(tmpdir(), 'hg-edge-'));
  const edgeId = `edge-${path.basename(stateDir).slice(-6).toLowerCase()}`;
  const logs: Record<string, unknown>[] = [];
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> = Promise.resolve(null);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOSTGATE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: options.databaseUrl,
    HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys,
    HOSTGATE_EDGE_ID: edgeId,
    HOSTGATE_EDGE_HTTPS_PORT: String(port),
    HOSTGATE_EDGE_STATE_DIR: stateDir,
    HOSTGATE_EDGE_RESOLVERS: options.resolvers,
    HOSTGATE_EDGE_ORIGIN_CA_FILE: options.originCaFile,
    HOSTGATE_EDGE_THREADS: '1',
    HOSTGATE_EDGE_POLL_INTERVAL_MS: '1000',
    HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS: '1000',
    HOSTGATE_EDGE_START_TIMEOUT_MS: '30000',
    // Test origins listen on loopback addresses (the SSRF refusal itself: edge-serving's own test).
    HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.env,
  };
  const edge: EdgeProcess = {
    port, stateDir, edgeId, logs,
    async start() {
      const from = logs.length;
      const c = spawn(process.execPath, [path.resolve('edge/agent-main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      exited = new Promise((resolve) => c.once('exit', (code) => resolve(code)));
      let buffer = '';
      c.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let i;
        while ((i = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 1);
          try { logs.push(JSON.parse(line) as Record<string, unknown>); } catch { logs.push({ msg: line }); }
        }
      });
      c.stderr!.setEncoding('utf8').on('data', (chunk: string) => logs.push({ msg: 'stderr', text: chunk }));
      await edge.waitForLog('edge agent ready', from, options.readyTimeoutMs ?? 40_000);
    },
    async kill() {
      child?.kill('SIGKILL');
      await exited;
      child = null;
    },
    async stop() {
      if (!child) return null;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 25_000);
      const code = await exited;
      clearTimeout(timer);
      child = null;
      return code;
    },
    async cleanup() {
      // A HAProxy left by a killed agent: stop it through its pid file (if that pid is still it).
      try {
        const { readFileSync } = await import('node:fs');
        const pid = Number(readFileSync(path.join(stateDir, 'haproxy.pid'), 'utf8').trim());
        if (pid && await isOurHaproxy(pid, path.join(stateDir, 'haproxy.cfg'))) process.kill(pid, 'SIGTERM');
      } catch { /* not running */ }
      await rm(stateDir, { recursive: true, force: true });
    },
    async waitForLog(msg, after = 0, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      const fail = (why: string) => new Error(`${why}\n--- agent log ---\n${logs.slice(-30).map((l) => JSON.stringify(l)).join('\n')}`);
      for (;;) {
        const found = logs.slice(after).find((l) => l.msg === msg);
        if (found) return found;
        if (logs.slice(after).some((l) => l.level === 60)) throw fail(`the agent failed before logging "${msg}"`);
        if (Date.now() > deadline) throw fail(`timed out after ${timeoutMs} ms waiting for agent log "${msg}"`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
  await edge.start();
  return edge;
}

export interface EdgeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Serial (lower-case hex) of the certificate the edge presented. */
  serial: string;
  /** Whether the chain validated against `ca`. */
  authorized: boolean;
  /** Whether the certificate names the hostname. */
  nameMatches: boolean;
  /** The certificate's subjectAltName as Node prints it ("DNS:a.example, DNS:b.example"). */
  san: string;
  alpn: string | false | null;
}

/** One HTTPS request to the edge on 127.0.0.1 for `hostname` (SNI and Host), no connection reuse. */
export function edgeGet(port: number, hostname: string, options: { path?: string; ca?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<EdgeResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', port, path: options.path ?? '/', servername: hostname, agent: false,
      headers: { host: hostname, ...options.headers },
      ca: options.ca, rejectUnauthorized: false, timeout: options.timeoutMs ?? 10_000,
    }, (res) => {
      const socket = res.socket as tls.TLSSocket;
      const cert = socket.getPeerCertificate();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'),
        serial: (cert.serialNumber ?? '').toLowerCase(), authorized: socket.authorized, alpn: socket.alpnProtocol,
        nameMatches: cert.subject !== undefined && tls.checkServerIdentity(hostname, cert) === undefined, san: cert.subjectaltname ?? '',
      }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${hostname} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

export const serialOf = (certPem: string) => new X509Certificate(certPem).serialNumber.toLowerCase();

export interface ServedFixture { organizationId: string; destinationId: string; domainId: string; certificateId: string | null }

/** Stores a certificate the way the certificate activities do (key sealed for its row). */
export async function storeCertificate(db: Db, domainId: string, certPem: string, keyPem: string): Promise<string> {
  const box = new SecretBox(testConfig().encryptionKeys);
  const id = newId('certificate');
  const leaf = new X509Certificate(certPem);
  const sealed = box.seal(keyPem, certificateKeyContext(id));
  await db.query(sql.unsafe`
    insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
    values (${id}, ${domainId}, ${leaf.serialNumber.toLowerCase()}, ${leaf.issuer}, ${new Date(leaf.validFrom).toISOString()},
            ${new Date(leaf.validTo).toISOString()}, ${certPem}, ${sql.binary(sealed.ciphertext)}, ${sealed.keyId})`);
  return id;
}

/** An organization, a destination and a domain in `status`, with a certificate when given. */
export async function insertDomain(db: Db, input: {
  hostname: string; destinationHost: string; destinationPort?: number; status?: string;
  certificate?: { certPem: string; keyPem: string }; organizationId?: string;
}): Promise<ServedFixture> {
  const organizationId = input.organizationId ?? (await organizationsRepository(db).create({ name: 'Edge test org' })).id;
  const destination = await destinationsRepository(db).create({ organizationId, url: `https://${input.destinationHost}:${input.destinationPort ?? 8443}`, host: input.destinationHost, port: input.destinationPort ?? 8443 });
  const domainId = newId('domain');
  await db.query(sql.unsafe`
    insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
    values (${domainId}, ${organizationId}, ${destination.id}, ${input.hostname}, false, ${input.status ?? 'active'})`);
  const certificateId = input.certificate ? await storeCertificate(db, domainId, input.certificate.certPem, input.certificate.keyPem) : null;
  return { organizationId, destinationId: destination.id, domainId, certificateId };
}

export async function setDomainStatus(db: Db, domainId: string, status: string): Promise<void> {
  await db.query(sql.unsafe`update domains set status = ${status}, status_seq = status_seq + 1, updated_at = hg_now() where id = ${domainId}`);
}
