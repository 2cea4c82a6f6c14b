// HAProxy's files, written so that a restart or reload serves exactly what the runtime API was
// told: the configuration (from the one template, edge/haproxy.cfg.template), the crt-list, the
// host map and one PEM (certificate chain + key) per host, mode 0600. Every write is a temp
// file + rename, so HAProxy never reads a half-written file.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crtOptions, optionsTls13, type ServedHost } from './desired-diff.ts';
import { trafficLogConfig, trafficRingConfig } from './traffic-log.ts';

const EDGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TEMPLATE_PATH = path.join(EDGE_DIR, 'haproxy.cfg.template');

export interface StatePaths {
  dir: string;
  config: string;
  crtList: string;
  hostMap: string;
  /** Destination host → IPv4 address, kept by the agent (origin-addresses.ts). */
  originMap: string;
  certDir: string;
  defaultCert: string;
  masterSocket: string;
  pidFile: string;
  certificate(hostname: string): string;
}

export function statePaths(dir: string): StatePaths {
  const abs = path.resolve(dir);
  const certDir = path.join(abs, 'certs');
  return {
    dir: abs,
    config: path.join(abs, 'haproxy.cfg'),
    crtList: path.join(abs, 'crt-list.txt'),
    hostMap: path.join(abs, 'hosts.map'),
    originMap: path.join(abs, 'origins.map'),
    certDir,
    defaultCert: path.join(abs, 'default.pem'),
    masterSocket: path.join(abs, 'master.sock'),
    pidFile: path.join(abs, 'haproxy.pid'),
    // Hostnames are validated LDH names (validate.ts): safe as file names.
    certificate: (hostname) => path.join(certDir, `${hostname}.pem`),
  };
}

export async function writeAtomic(file: string, content: string, mode = 0o644): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, content, { mode });
  // writeFile's mode is masked by the umask; key files must be 0600 whatever it is.
  await chmod(temp, mode);
  await rename(temp, file);
}

export interface ForbiddenOrigins { ipv4: string[]; ipv6Allowed: string; ipv6: string[] }

export interface TemplateValues {
  edgeId: string;
  /**
   * Origin addresses the edge refuses to connect to: non-public ranges and the edge's own addresses
   * (SSRF into our network, requests looping back). IPv4: the CIDRs refused. IPv6: only addresses
   * within `ipv6Allowed` (global unicast) are used, minus the `ipv6` CIDRs. Null: every address
   * (local stacks and tests, HOSTGATE_ALLOW_PRIVATE_TARGETS=true).
   */
  forbiddenOrigins: ForbiddenOrigins | null;
  bindAddress: string;
  httpsPort: number;
  originCaFile: string;
  resolvers: string[];
  hstsMaxAge: number;
  /** HAProxy's nbthread; 0 leaves HAProxy's default (one per CPU). settings.ts picks it. */
  threads: number;
  /** The agent's request-log port (traffic-log.ts); 0 or absent: no request log. */
  trafficLogPort?: number;
}

/**
 * The frontend lines that refuse a forbidden origin address (502 origin_address_forbidden). An
 * address's family is told by its text (an IPv6 one holds a colon): HAProxy compares an IPv4
 * address with an IPv6 pattern as ::ffff:a.b.c.d, so a v6 range alone could catch IPv4 origins.
 */
function forbiddenOriginRules(f: ForbiddenOrigins | null): string {
  if (!f) return '# Origins on private addresses allowed (HOSTGATE_ALLOW_PRIVATE_TARGETS=true)';
  const refuse = `http-request return status 502 content-type "text/html; charset=utf-8" lf-file ${path.join(EDGE_DIR, 'pages')}/origin-forbidden.html hdr X-Hostgate-Error origin_address_forbidden hdr Cache-Control no-store`;
  return [
    'acl origin_ipv6 var(txn.dstip) -m sub :',
    `${refuse} if !origin_ipv6 { var(txn.dstip) -m ip ${f.ipv4.join(' ')} }`,
    `${refuse} if origin_ipv6 !{ var(txn.dstip) -m ip ${f.ipv6Allowed} } || origin_ipv6 { var(txn.dstip) -m ip ${f.ipv6.join(' ')} }`,
  ].join('\n  ');
}

/** The generated configuration: the template with every ${NAME} filled; an unknown name throws. */
export async function renderConfig(paths: StatePaths, v: TemplateValues): Promise<string> {
  const template = await readFile(TEMPLATE_PATH, 'utf8');
  const values: Record<string, string> = {
    LUA_FILE: path.join(EDGE_DIR, 'origin-problem.lua'),
    NBTHREAD: v.threads > 0 ? `nbthread ${v.threads}` : '# nbthread: HAProxy default (one per CPU)',
    NAMESERVERS: v.resolvers.length === 0 ? 'parse-resolv-conf' : v.resolvers.map((s, i) => `nameserver ns${i + 1} ${/:\d+$/.test(s) ? s : `${s}:53`}`).join('\n  '),
    BIND_ADDRESS: v.bindAddress.includes(':') ? `[${v.bindAddress}]` : v.bindAddress,
    HTTPS_PORT: String(v.httpsPort),
    DEFAULT_CERT: paths.defaultCert,
    CRT_LIST: paths.crtList,
    HOST_MAP: paths.hostMap,
    ORIGIN_MAP: paths.originMap,
    PAGES_DIR: path.join(EDGE_DIR, 'pages'),
    ORIGIN_CA_FILE: v.originCaFile,
    EDGE_ID: v.edgeId,
    FORBIDDEN_ORIGINS: forbiddenOriginRules(v.forbiddenOrigins),
    TRAFFIC_LOG: trafficLogConfig(v.trafficLogPort ?? 0),
    TRAFFIC_RING: trafficRingConfig(v.trafficLogPort ?? 0),
    HSTS: v.hstsMaxAge > 0 ? `http-after-response set-header Strict-Transport-Security "max-age=${v.hstsMaxAge}"` : '# HSTS: off (HOSTGATE_EDGE_HSTS_MAX_AGE=0)',
  };
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`edge/haproxy.cfg.template uses \${${name}}, which the agent does not define`);
    return value;
  });
}

/**
 * The certificate HAProxy presents when no crt-list entry matches the SNI (unknown hostnames get
 * the 421 page over it). Self-signed, made once per state directory.
 */
export async function ensureDefaultCertificate(paths: StatePaths): Promise<void> {
  if (existsSync(paths.defaultCert)) return;
  const key = `${paths.defaultCert}.key.tmp`;
  const cert = `${paths.defaultCert}.crt.tmp`;
  try {
    await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-keyout', key, '-out', cert, '-days', '3650', '-subj', '/CN=unknown.invalid'], { timeout: 30_000 });
    await writeAtomic(paths.defaultCert, `${await readFile(cert, 'utf8')}${await readFile(key, 'utf8')}`, 0o600);
  } finally {
    await rm(key, { force: true });
    await rm(cert, { force: true });
  }
}

export async function prepareStateDir(paths: StatePaths): Promise<void> {
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await mkdir(paths.certDir, { recursive: true, mode: 0o700 });
  await chmod(paths.certDir, 0o700);
}

export async function writeCertificate(paths: StatePaths, hostname: string, pem: string): Promise<void> {
  await writeAtomic(paths.certificate(hostname), pem, 0o600);
}

export async function removeCertificate(paths: StatePaths, hostname: string): Promise<void> {
  await unlink(paths.certificate(hostname)).catch((error: NodeJS.ErrnoException) => { if (error.code !== 'ENOENT') throw error; });
}

/** Rewrites the crt-list and the map from what HAProxy serves (as the agent tracks it). */
export async function writeLists(paths: StatePaths, served: Map<string, ServedHost>): Promise<void> {
  const hosts = [...served.keys()].sort();
  const crt: string[] = [];
  const map: string[] = [];
  for (const h of hosts) {
    const s = served.get(h)!;
    if (s.inCrtList) crt.push(`${paths.certificate(h)} ${crtOptions(s.tls13 ?? false)} ${h}`);
    if (s.route !== null) map.push(`${h} ${s.route}`);
  }
  await writeAtomic(paths.crtList, crt.length ? `${crt.join('\n')}\n` : '');
  await writeAtomic(paths.hostMap, map.length ? `${map.join('\n')}\n` : '');
}

/** Deletes certificate files no host uses any more (left by a crash between runtime and files). */
export async function removeStaleCertificates(paths: StatePaths, served: Map<string, ServedHost>): Promise<void> {
  for (const name of await readdir(paths.certDir)) {
    const host = name.replace(/\.pem$/, '');
    if (name.endsWith('.tmp') || !served.get(host)?.inCrtList) await rm(path.join(paths.certDir, name), { force: true });
  }
}

/** The crt-list and map on disk, as the served state they describe (used when HAProxy is not running). */
export async function readLists(paths: StatePaths): Promise<Map<string, ServedHost>> {
  const served = new Map<string, ServedHost>();
  const read = async (file: string) => (existsSync(file) ? readFile(file, 'utf8') : '');
  for (const line of (await read(paths.hostMap)).split('\n')) {
    const [h, v] = line.trim().split(/\s+/);
    if (h && v) served.set(h, { route: v, inCrtList: false });
  }
  for (const line of (await read(paths.crtList)).split('\n')) {
    const m = /^(\S+) \[([^\]]*)\] (\S+)$/.exec(line.trim());
    if (!m || !existsSync(m[1]!)) continue;
    const tls13 = optionsTls13(m[2]);
    const s = served.get(m[3]!);
    if (s) { s.inCrtList = true; s.tls13 = tls13; }
    else served.set(m[3]!, { route: null, inCrtList: true, tls13 });
  }
  return served;
}
