// `hostgate doctor`: checks a deployment's configuration and reachability, from the machine it runs
// on, and says what is wrong and how to fix it (issue 18; docs/deploy.md). Every check is bounded in
// time, so a dead dependency shows as a problem instead of a hang. Problems that stop issuance or
// serving are "blocking" and make the command exit non-zero; the others are warnings.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Resolver } from 'node:dns/promises';
import https from 'node:https';
import pg from 'pg';
import { parseEncryptionKeys, type Config, type EncryptionKey } from '../config/index.ts';
import { appliedMigrationVersion, migrationsDir } from '../db/migrate.ts';
import { allSearchAttributes } from '../contracts/search-attributes.ts';
import { connectTemporal } from '../temporal/connection.ts';
import { answerWithin } from '../process/deadline.ts';
import { LOCAL_CHALLENGE_ZONE } from '../local-stack/powerdns.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  /** A problem that stops issuance or serving (exit code 1); false: a warning. */
  blocking: boolean;
  detail: string;
  fix?: string;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 3000;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)) || String(error);

/** Rejects after `ms` with a message naming what did not answer. */
const within = <T>(ms: number, what: string, work: Promise<T>): Promise<T> => answerWithin(work, ms, what);

const ok = (name: string, detail: string): CheckResult => ({ name, ok: true, blocking: false, detail });
const problem = (name: string, detail: string, fix: string, blocking = true): CheckResult => ({ name, ok: false, blocking, detail, fix });

/** The newest migration this code ships (postgrator's `NNN.do.*.sql`). */
function latestMigration(): number {
  return Math.max(0, ...readdirSync(migrationsDir).map((f) => /^(\d+)\.do\./.exec(f)?.[1]).filter((v): v is string => v !== undefined).map(Number));
}

async function checkDatabase(url: string | undefined, timeoutMs: number): Promise<CheckResult> {
  const name = 'database';
  if (!url) return problem(name, 'DATABASE_URL is not set', 'set DATABASE_URL=postgres://user:password@host:5432/hostgate (or run `npm start` for the embedded Postgres)');
  const where = (() => { try { const u = new URL(url); return `${u.hostname}:${u.port || 5432}${u.pathname}`; } catch { return 'DATABASE_URL'; } })();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, statement_timeout: timeoutMs });
  try {
    await within(timeoutMs + 500, `Postgres at ${where}`, client.connect());
    const latest = latestMigration();
    const applied = await appliedMigrationVersion(client);
    if (applied < latest) return problem(name, `reachable at ${where}, but the schema is at migration ${applied} of ${latest}`, 'run `hostgate migrate` (the API and the worker also migrate when they start)');
    if (applied > latest) return problem(name, `reachable at ${where}, but the schema is at migration ${applied}, newer than this code's ${latest}`, 'run the same Hostgate version as the processes that migrated the database', false);
    return ok(name, `reachable at ${where}; migrations current (${applied})`);
  } catch (error) {
    // The URL may carry a password: only host, port and database are shown.
    return problem(name, `cannot reach Postgres at ${where}: ${message(error)}`, 'check DATABASE_URL (host, port, credentials) and that Postgres is running and accepts connections from this machine');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function checkTemporal(config: Config, timeoutMs: number): Promise<CheckResult> {
  const name = 'temporal';
  const address = config.temporal.address ?? `127.0.0.1:${config.localStack.temporalPort}`;
  const namespace = config.temporal.namespace;
  let connection: Awaited<ReturnType<typeof connectTemporal>> | undefined;
  try {
    connection = await within(timeoutMs + 500, `Temporal at ${address}`, connectTemporal(address, { timeoutMs }));
    const conn = connection;
    const deadline = () => Date.now() + timeoutMs;
    try {
      await conn.withDeadline(deadline(), () => conn.workflowService.describeNamespace({ namespace }));
    } catch (error) {
      return problem(name, `Temporal at ${address} has no namespace "${namespace}": ${message(error)}`, `create it (\`temporal operator namespace create --namespace ${namespace}\`) or set TEMPORAL_NAMESPACE`);
    }
    const listed = await conn.withDeadline(deadline(), () => conn.operatorService.listSearchAttributes({ namespace }));
    const known = new Set(Object.keys(listed.customAttributes ?? {}));
    const missing = allSearchAttributes.filter((a) => !known.has(a.name)).map((a) => a.name);
    if (missing.length) {
      return problem(name, `namespace "${namespace}" at ${address} lacks the search attributes ${missing.join(', ')}`, 'start a worker once (it registers them), or add them with `temporal operator search-attribute create`', false);
    }
    return ok(name, `reachable at ${address}; namespace "${namespace}" with our ${allSearchAttributes.length} search attributes`);
  } catch (error) {
    return problem(name, `cannot reach Temporal at ${address}: ${message(error)}`, config.temporal.address ? 'check TEMPORAL_ADDRESS (host:port of the frontend, 7233) and that the cluster is running' : 'set TEMPORAL_ADDRESS to your Temporal frontend (host:port), or run `npm start` for the local dev server');
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/** The keys of a key file as `npm start` writes it; null when it cannot be read as keys. */
function readKeyFile(file: string): EncryptionKey[] | null {
  try { return parseEncryptionKeys(readFileSync(file, 'utf8').trim()); } catch { return null; }
}

/** Same ids and key bytes in the same order: the same setting, however it is spelled. */
function sameKeys(a: EncryptionKey[], b: EncryptionKey[]): boolean {
  return a.length === b.length && a.every((k, i) => k.id === b[i]!.id && k.key.equals(b[i]!.key));
}

function checkEncryptionKeys(config: Config): CheckResult {
  const name = 'encryption keys';
  const production = config.env === 'production';
  if (config.encryptionKeys.length === 0) {
    return production
      ? problem(name, 'HOSTGATE_ENCRYPTION_KEYS is not set: the API and worker cannot store or read secrets', 'set HOSTGATE_ENCRYPTION_KEYS=k1:$(openssl rand -base64 32) on every API and worker process (the same value everywhere)')
      : ok(name, `not set: development uses the key generated under ${path.resolve(config.dataDir, 'encryption-keys')}`);
  }
  const devFile = path.resolve(config.dataDir, 'encryption-keys');
  const devKeys = existsSync(devFile) ? readKeyFile(devFile) : null;
  if (production && ((devKeys !== null && sameKeys(devKeys, config.encryptionKeys)) || config.encryptionKeys.some((k) => k.id === 'local1'))) {
    return problem(name, 'HOSTGATE_ENCRYPTION_KEYS is the key `npm start` generated for development', 'generate a production key (k2:$(openssl rand -base64 32)), put it first in HOSTGATE_ENCRYPTION_KEYS and keep the old one after it while stored secrets still use it (docs/deploy.md, "Rotating encryption keys")');
  }
  return ok(name, `${config.encryptionKeys.length} key(s); "${config.encryptionKeys[0]!.id}" encrypts`);
}

/** Private targets are for local stacks: in production they open webhooks and origins to the inside. */
function checkOutboundTargets(config: Config): CheckResult {
  const name = 'outbound targets';
  if (config.env === 'production' && config.allowPrivateTargets) {
    return problem(name, 'HOSTGATE_ALLOW_PRIVATE_TARGETS=true: webhooks and destinations may name loopback, private and cloud-metadata addresses, so any API key can make this network call itself', 'unset HOSTGATE_ALLOW_PRIVATE_TARGETS in production (keep it for local stacks and tests)', false);
  }
  return ok(name, config.allowPrivateTargets ? 'private addresses allowed (not production)' : 'public addresses only (SSRF guard on)');
}

/** `localhost` and names under it resolve to the loopback of whoever asks (RFC 6761): no customer can CNAME to them. */
const isLocalhostName = (name: string) => name === 'localhost' || name.endsWith('.localhost');

function checkEdgeAddresses(config: Config): CheckResult {
  const name = 'edge addresses';
  const found: string[] = [];
  if (config.edgeIpv4.length === 0 && config.edgeIpv6.length === 0) found.push('not set: HOSTGATE_EDGE_IPV4 / HOSTGATE_EDGE_IPV6 (apex domains need A/AAAA records to the edge)');
  // Unset, the target is edge.<HOSTGATE_SERVICE_DOMAIN>: under the default service domain, a localhost name too.
  if (isLocalhostName(config.cnameTarget)) found.push(`HOSTGATE_CNAME_TARGET is ${config.cnameTarget} (edge.<HOSTGATE_SERVICE_DOMAIN> when unset), a localhost name customers cannot CNAME to`);
  if (found.length) return problem(name, found.join('; '), "set HOSTGATE_EDGE_IPV4 (and/or HOSTGATE_EDGE_IPV6) to the edges' public addresses and HOSTGATE_CNAME_TARGET to a name resolving to them, on the API and worker processes");
  return ok(name, `CNAME target ${config.cnameTarget}; A ${config.edgeIpv4.join(', ') || '-'}; AAAA ${config.edgeIpv6.join(', ') || '-'}`);
}

function connectTcp(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => { socket.destroy(); resolve(); });
    socket.once('timeout', () => { socket.destroy(); reject(new Error(`no answer within ${timeoutMs} ms`)); });
    socket.once('error', (error) => { socket.destroy(); reject(error); });
  });
}

async function checkEdgePorts(config: Config, timeoutMs: number): Promise<CheckResult[]> {
  const addresses = [...config.edgeIpv4, ...config.edgeIpv6];
  if (addresses.length === 0) return [problem('edge ports', 'no edge address to try (HOSTGATE_EDGE_IPV4 / HOSTGATE_EDGE_IPV6 are not set)', 'set the edge addresses first')];
  const ports = [
    { label: 'HTTPS', port: config.edge.httpsPort, variable: 'HOSTGATE_EDGE_HTTPS_PORT', why: 'customers reach their domains on it' },
    { label: 'HTTP', port: config.edge.httpPort, variable: 'HOSTGATE_HTTP_PORT', why: 'ACME HTTP-01 challenges and the redirect to HTTPS arrive on it' },
  ];
  const results: CheckResult[] = [];
  for (const { label, port, variable, why } of ports) {
    const failures: string[] = [];
    for (const address of addresses) {
      try { await connectTcp(address, port, timeoutMs); } catch (error) { failures.push(`${address}:${port}: ${message(error)}`); }
    }
    results.push(failures.length
      ? problem(`edge ${label} port`, `not answering: ${failures.join('; ')}`, `start the edge agent (and HAProxy) on every edge with ${variable}=${port} and HOSTGATE_EDGE_BIND_ADDRESS=0.0.0.0; open port ${port} in the firewall (${why})`)
      : ok(`edge ${label} port`, `${addresses.map((a) => `${a}:${port}`).join(', ')} answering`));
  }
  return results;
}

/** GET of a JSON document over HTTPS, bounded by `timeoutMs` from the first byte sent to the last received. */
function getJson(url: string, ca: string | undefined, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs), ...(ca ? { ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        try { resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }); } catch { resolve({ status: res.statusCode ?? 0, body: null }); }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

async function checkAcmeDirectory(config: Config, timeoutMs: number): Promise<CheckResult[]> {
  // Every configured CA (HOSTGATE_ACME_DIRECTORIES); with more than one, a CA that does not answer
  // is a warning while another does (orders fail over to it), and each check is named after its CA.
  const several = config.acme.directories.length > 1;
  const variable = several ? 'HOSTGATE_ACME_DIRECTORIES' : 'HOSTGATE_ACME_DIRECTORY_URL';
  type Checked = { up: true; result: CheckResult } | { up: false; name: string; text: string; hint: string };
  const checked = await Promise.all(config.acme.directories.map(async (dir): Promise<Checked> => {
    const name = several ? `ACME directory ${dir.name}` : 'ACME directory';
    const url = dir.directoryUrl;
    try {
      const ca = dir.caBundlePath ? readFileSync(dir.caBundlePath, 'utf8') : undefined;
      const res = await within(timeoutMs + 500, url, getJson(url, ca, timeoutMs));
      const body = (res.body ?? {}) as Record<string, unknown>;
      const missing = ['newNonce', 'newAccount', 'newOrder'].filter((k) => typeof body[k] !== 'string');
      return res.status === 200 && missing.length === 0
        ? { up: true, result: ok(name, `${url} answers`) }
        : { up: false, name, text: `${url} answered ${res.status} without ${missing.join(', ')}`, hint: `set ${variable} to an ACME directory (https://acme-v02.api.letsencrypt.org/directory)` };
    } catch (error) {
      return { up: false, name, text: `cannot reach ${url}: ${message(error)}`, hint: `check ${variable}, outbound HTTPS (443) from the worker machines, and ${several ? 'its ca_bundle' : 'HOSTGATE_ACME_CA_BUNDLE'} for a private CA` };
    }
  }));
  const anyUp = checked.some((c) => c.up);
  const results: CheckResult[] = checked.map((c) => (c.up ? c.result : problem(c.name, c.text, c.hint, !(several && anyUp))));
  if (!config.acme.email) results.push(problem('ACME account email', 'HOSTGATE_ACME_EMAIL is not set: the CA cannot warn you about expiring or revoked certificates', 'set HOSTGATE_ACME_EMAIL=ops@your-company.example', false));
  return results;
}

async function checkDnsResolvers(config: Config, timeoutMs: number): Promise<CheckResult> {
  const name = 'DNS resolvers';
  const servers = config.dns.servers.length ? config.dns.servers : new Resolver().getServers();
  if (servers.length === 0) return problem(name, 'no DNS server configured (HOSTGATE_DNS_SERVERS empty and none in /etc/resolv.conf)', 'set HOSTGATE_DNS_SERVERS=1.1.1.1,8.8.8.8');
  const dead: string[] = [];
  for (const server of servers) {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    try {
      resolver.setServers([server]);
      await within(timeoutMs + 500, `DNS server ${server}`, resolver.resolve4(config.cnameTarget));
    } catch (error) {
      const code = (error as { code?: string }).code;
      // NXDOMAIN / NODATA are answers: the server is alive, the name simply has no A record (yet).
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') dead.push(`${server} (${code ?? message(error)})`);
    } finally {
      resolver.cancel();
    }
  }
  if (dead.length) return problem(name, `not answering: ${dead.join(', ')}`, 'fix HOSTGATE_DNS_SERVERS (ip or ip:port of recursive resolvers reachable from the workers); domain verification cannot run without them');
  return ok(name, `${servers.join(', ')} answering`);
}

/**
 * Zero-downtime moves (docs/zero-downtime-moves.md): our PowerDNS answers the challenge zone's SOA
 * from Postgres. Only when moves are on; a warning, since the rest of the lifecycle does not need it.
 */
export async function checkChallengeDns(config: Config, timeoutMs: number): Promise<CheckResult | null> {
  const zone = config.moves.challengeZone;
  if (!zone) return null;
  const name = 'Challenge zone DNS (PowerDNS)';
  const server = config.moves.challengeDnsServer;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  try {
    resolver.setServers([server]);
    const soa = await within(timeoutMs + 500, `PowerDNS at ${server}`, resolver.resolveSoa(zone));
    return ok(name, `${server} answers ${zone} (SOA ${soa.nsname})`);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EREFUSED') {
      return problem(name, `PowerDNS at ${server} is running but has no zone ${zone} (REFUSED)`,
        'start the worker once (it creates the zone\'s SOA and NS rows when HOSTGATE_CHALLENGE_ZONE is set), or check that pdns_server reads this database (gpgsql-dbname)', false);
    }
    return problem(name, `${server} does not answer the SOA of ${zone} (${code ?? message(error)})`,
      'run pdns_server with the gpgsql backend on our database (docs/zero-downtime-moves.md) and point HOSTGATE_CHALLENGE_DNS_SERVER at it; until then zero-downtime moves cannot issue certificates', false);
  } finally {
    resolver.cancel();
  }
}

/**
 * The delegation of the challenge zone as resolvers see it (HOSTGATE_DNS_SERVERS, else the
 * system's): the CA follows customers' `_acme-challenge` CNAMEs into the zone, so its parent must
 * delegate it to our PowerDNS with NS records. A warning: HTTP-01 does not need it.
 */
export async function checkChallengeDelegation(config: Config, timeoutMs: number): Promise<CheckResult | null> {
  const zone = config.moves.challengeZone;
  if (!zone) return null;
  const name = 'Challenge zone delegation';
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  const fix = `at the parent zone, add "${zone} NS <name of your PowerDNS host>" (and its A record), so that resolvers ask our PowerDNS (docs/deploy.md, "Zero-downtime moves")`;
  try {
    if (config.dns.servers.length > 0) resolver.setServers(config.dns.servers);
    const ns = await within(timeoutMs + 500, 'the resolvers', resolver.resolveNs(zone));
    return ns.length > 0 ? ok(name, `resolvers see ${zone} delegated to ${ns.join(', ')}`) : problem(name, `resolvers find no NS records for ${zone}`, fix, false);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return problem(name, `resolvers find no delegation of ${zone} (${code ?? message(error)})`, fix, false);
  } finally {
    resolver.cancel();
  }
}

/**
 * The moves settings to check: the configured ones, else — on a machine where `npm start` runs its
 * own PowerDNS (its pdns.conf under the data dir) — the local challenge zone it serves.
 */
export function challengeSettings(config: Config): Config {
  if (config.moves.challengeZone || !existsSync(path.join(config.dataDir, 'pdns', 'pdns.conf'))) return config;
  return { ...config, moves: { ...config.moves, challengeZone: LOCAL_CHALLENGE_ZONE, challengeDnsServer: `127.0.0.1:${config.localStack.pdnsPort}` } };
}

/** Runs every check; the report lists them in a stable order. */
export async function runDoctor(config: Config, databaseUrl: string | undefined, options: { timeoutMs?: number } = {}): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const [database, temporal, edgePorts, acme, dns, challengeDns, delegation] = await Promise.all([
    checkDatabase(databaseUrl, timeoutMs), checkTemporal(config, timeoutMs), checkEdgePorts(config, timeoutMs),
    // The local zone of `npm start` is answered by its PowerDNS only: no delegation to check.
    checkAcmeDirectory(config, timeoutMs), checkDnsResolvers(config, timeoutMs), checkChallengeDns(challengeSettings(config), timeoutMs),
    checkChallengeDelegation(config, timeoutMs),
  ]);
  return [database, temporal, checkEncryptionKeys(config), checkOutboundTargets(config), checkEdgeAddresses(config), ...edgePorts, ...acme, dns,
    ...(challengeDns ? [challengeDns] : []), ...(delegation ? [delegation] : [])];
}

/** One line per check, then the fix under each problem. */
export function formatDoctor(results: CheckResult[]): string[] {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.ok ? 'ok     ' : r.blocking ? 'PROBLEM' : 'warning'}  ${r.name}: ${r.detail}`);
    if (!r.ok && r.fix) lines.push(`         fix: ${r.fix}`);
  }
  const blocking = results.filter((r) => !r.ok && r.blocking).length;
  lines.push(blocking ? `${blocking} problem(s) block issuance or serving` : 'nothing blocks issuance or serving');
  return lines;
}
