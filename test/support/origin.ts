// A real HTTPS origin for edge tests: a test CA of its own (openssl, EC P-256), servers on a
// loopback address of their own at port 8443 (destinations accept only 443/8443, so each origin
// takes a random 127.x.y.z instead of a random port), echoing what they received as JSON, and a
// WebSocket echo on any path.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WebSocketServer } from 'ws';

const run = promisify(execFile);

export interface TestCa {
  certPath: string;
  pem: string;
  /** A certificate for `names` signed by this CA (serial random), with its key. */
  issue(names: string[], options?: { days?: number }): Promise<{ certPem: string; keyPem: string }>;
  close(): Promise<void>;
}

let counter = 0;

export async function createTestCa(cn = 'Hostgate test CA'): Promise<TestCa> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hg-ca-'));
  const keyPath = path.join(dir, 'ca.key');
  const certPath = path.join(dir, 'ca.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyPath, '-out', certPath,
    '-days', '3', '-subj', `/CN=${cn}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return {
    certPath,
    pem: await readFile(certPath, 'utf8'),
    async issue(names, options = {}) {
      const n = ++counter;
      const key = path.join(dir, `leaf${n}.key`);
      const csr = path.join(dir, `leaf${n}.csr`);
      const crt = path.join(dir, `leaf${n}.crt`);
      const ext = path.join(dir, `leaf${n}.ext`);
      await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${names[0]}`]);
      await writeFile(ext, `subjectAltName=${names.map((h) => `DNS:${h}`).join(',')}\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', ['x509', '-req', '-in', csr, '-CA', certPath, '-CAkey', keyPath, '-set_serial', `0x${Date.now().toString(16)}${n.toString(16).padStart(4, '0')}`,
        '-days', String(options.days ?? 2), '-extfile', ext, '-out', crt]);
      return { certPem: await readFile(crt, 'utf8'), keyPem: await readFile(key, 'utf8') };
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface SeenRequest { method: string; url: string; headers: IncomingHttpHeaders; remoteAddress: string | undefined }

export interface TestOrigin {
  /** The loopback address it listens on (a random 127/8 one and port 8443 unless given). */
  ip: string;
  port: number;
  requests: SeenRequest[];
  /** Stops listening (connections refused) / listens again. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A random loopback address other than 127.0.0.1 (Linux answers on all of 127/8). */
export function randomLoopback(): string {
  const b = () => 1 + Math.floor(Math.random() * 250);
  return `127.${b()}.${b()}.${b()}`;
}

/**
 * An HTTPS origin presenting a certificate for `certificateNames` from `ca`. Answers every request
 * with JSON of what it saw, padded to `bodyBytes` when given.
 */
export async function startTestOrigin(ca: TestCa, certificateNames: string[], options: { bodyBytes?: number; ip?: string; port?: number } = {}): Promise<TestOrigin> {
  const { certPem, keyPem } = await ca.issue(certificateNames);
  const requests: SeenRequest[] = [];
  const ip = options.ip ?? randomLoopback();
  const port = options.port ?? 8443;
  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
  let server: https.Server | null = null;
  const listen = () => new Promise<void>((resolve, reject) => {
    const s = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, remoteAddress: req.socket.remoteAddress });
      req.resume();
      req.on('end', () => {
        let body = JSON.stringify({ origin: certificateNames[0], url: req.url, headers: req.headers });
        if (options.bodyBytes && body.length < options.bodyBytes) body = body.padEnd(options.bodyBytes, ' ');
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    s.keepAliveTimeout = 60_000;
    s.on('upgrade', (req, socket, head) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, remoteAddress: req.socket.remoteAddress });
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    });
    s.once('error', reject);
    s.listen(port, ip, () => { server = s; resolve(); });
  });
  const stop = () => new Promise<void>((resolve) => {
    const s = server;
    server = null;
    if (!s) return resolve();
    s.closeAllConnections();
    s.close(() => resolve());
  });
  await listen();
  return {
    ip, port, requests,
    down: stop,
    up: listen,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await stop();
    },
  };
}
