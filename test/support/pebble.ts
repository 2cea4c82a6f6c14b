// A real ACME CA for a test file: Debian's Pebble on free loopback ports, resolving names through
// the test DNS server and sending HTTP-01 validation requests to `httpPort` (where the test runs
// the challenge server). Its roots change on every start; `rootPem()` fetches the current one.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

const run = promisify(execFile);

export interface PebbleOptions {
  /** `host:port` of the DNS server Pebble resolves through (the test DNS server). */
  dnsServer: string;
  /** Where Pebble sends HTTP-01 validation requests; a free port when not given. */
  httpPort?: number;
  /** Lifetime of issued certificates in seconds (Pebble's default is five years). */
  certificateValidityPeriod?: number;
  /** Percentage of good nonces Pebble rejects as bad (PEBBLE_WFE_NONCEREJECT); 0 by default. */
  nonceReject?: number;
  /** Names Pebble refuses to issue for (rejectedIdentifier). */
  domainBlocklist?: string[];
}

export interface Pebble {
  /** The ACME directory, https://127.0.0.1:<port>/dir. */
  directoryUrl: string;
  /** PEM file of the WFE's self-signed TLS certificate (trust it for the ACME connection). */
  caBundlePath: string;
  httpPort: number;
  managementUrl: string;
  /** The current issuing root (PEM). */
  rootPem(): Promise<string>;
  /** The current intermediate (PEM); issued chains already include it. */
  intermediatePem(): Promise<string>;
  /** Pebble's recent output, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout fetching ${url}`)));
    req.on('error', reject);
  });
}

export async function startPebble(options: PebbleOptions): Promise<Pebble> {
  // A port free when chosen can be taken by another test process before Pebble binds it (it
  // binds three): a new set of ports then, a bounded number of times.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPebbleOnce(options);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('address already in use')) throw error;
    }
  }
}

async function startPebbleOnce(options: PebbleOptions): Promise<Pebble> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hg-pebble-'));
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '30',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
  const ca = await readFile(certPath, 'utf8');

  const [listenPort, managementPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
  const httpPort = options.httpPort ?? await freePort();
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${listenPort}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: certPath,
      privateKey: keyPath,
      httpPort,
      tlsPort,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
      domainBlocklist: options.domainBlocklist ?? [],
      ...(options.certificateValidityPeriod ? { certificateValidityPeriod: options.certificateValidityPeriod } : {}),
    },
  };
  const configPath = path.join(dir, 'pebble-config.json');
  await writeFile(configPath, JSON.stringify(config, null, 2));

  let output = '';
  const child: ChildProcess = spawn('/usr/bin/pebble', ['-config', configPath, '-dnsserver', options.dnsServer], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: String(options.nonceReject ?? 0),
      PEBBLE_AUTHZREUSE: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // BENCH_PEBBLE_LOG=<file>: Pebble's whole output kept for reading after a run (benchmarks).
  const pebbleLog = process.env.BENCH_PEBBLE_LOG;
  const keep = (chunk: Buffer) => { output = (output + chunk.toString('utf8')).slice(-20_000); if (pebbleLog) appendFileSync(pebbleLog, chunk); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => { exited = true; resolve(); }));

  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const base = `https://127.0.0.1:${listenPort}`;
  const managementUrl = `https://127.0.0.1:${managementPort}`;
  try {
    await waitFor('pebble to serve its directory', async () => {
      if (exited) throw new Error(`pebble exited:\n${output}`);
      const res = await get(`${base}/dir`, ca);
      return res.status === 200;
    }, 20_000, 50);
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}\n--- pebble output ---\n${output}`);
  }

  const fetchPem = async (what: string) => {
    const res = await get(`${managementUrl}/${what}/0`, ca);
    if (res.status !== 200) throw new Error(`pebble ${what}/0 answered ${res.status}`);
    return res.body;
  };

  return {
    directoryUrl: `${base}/dir`,
    caBundlePath: certPath,
    httpPort,
    managementUrl,
    rootPem: () => fetchPem('roots'),
    intermediatePem: () => fetchPem('intermediates'),
    output: () => output,
    stop,
  };
}
