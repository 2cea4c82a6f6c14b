// PowerDNS for the local stack (zero-downtime moves on by default locally, issue 22): Debian's
// pdns-server with the gpgsql backend, on a loopback port, reading the challenge zone from the
// stack's own Postgres (`pdns` schema, migration 010). `powerDnsConfig` is the configuration a
// deployment needs too (docs/deploy.md, "Zero-downtime moves"): PowerDNS beside other services on
// one machine needs its own port, socket dir and no outbound security poll.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Resolver } from 'node:dns/promises';
import path from 'node:path';

export const PDNS_SERVER = '/usr/sbin/pdns_server';
/** Where Debian's pdns-backend-pgsql puts its module (any architecture). */
const GPGSQL_MODULES = ['/usr/lib/x86_64-linux-gnu/pdns/libgpgsqlbackend.so', '/usr/lib/aarch64-linux-gnu/pdns/libgpgsqlbackend.so', '/usr/lib/pdns/libgpgsqlbackend.so'];

/** The local challenge zone when none is configured: answered only by our own PowerDNS. */
export const LOCAL_CHALLENGE_ZONE = 'acme-challenges.hostgate.localhost';

/** Whether pdns-server and pdns-backend-pgsql are installed; else what to run. */
export function powerDnsInstalled(): { ok: true } | { ok: false; install: string } {
  if (existsSync(PDNS_SERVER) && GPGSQL_MODULES.some((m) => existsSync(m))) return { ok: true };
  return { ok: false, install: 'sudo apt-get install pdns-server pdns-backend-pgsql (then `sudo systemctl disable --now pdns`: npm start runs its own)' };
}

/** pdns.conf for a PowerDNS serving the `pdns` schema of the Postgres at `databaseUrl`. */
export function powerDnsConfig(databaseUrl: string, port: number, socketDir: string, address = '127.0.0.1'): string {
  const u = new URL(databaseUrl);
  return [
    'launch=gpgsql',
    `gpgsql-host=${u.hostname}`,
    `gpgsql-port=${u.port || '5432'}`,
    `gpgsql-user=${decodeURIComponent(u.username || 'postgres')}`,
    ...(u.password ? [`gpgsql-password=${decodeURIComponent(u.password)}`] : []),
    `gpgsql-dbname=${u.pathname.slice(1)}`,
    // Our own `domains` table is in `public`: PowerDNS reads its tables from the `pdns` schema.
    "gpgsql-extra-connection-parameters=options='-c search_path=pdns'",
    `local-address=${address}`,
    `local-port=${port}`,
    // Caches off: a challenge TXT written is answered by the next question.
    'cache-ttl=0', 'negquery-cache-ttl=0', 'query-cache-ttl=0', 'zone-cache-refresh-interval=0',
    'distributor-threads=1', 'receiver-threads=1',
    `socket-dir=${socketDir}`,
    'webserver=no', 'security-poll-suffix=',
  ].join('\n') + '\n';
}

export interface LocalPowerDns { server: string; process: ChildProcess; stop(): Promise<void> }

/** Starts pdns_server (config under `dataDir/pdns`); ready once it answers the zone's SOA (bounded). */
export async function startLocalPowerDns(options: { databaseUrl: string; dataDir: string; port: number; zone: string; timeoutMs?: number }): Promise<LocalPowerDns> {
  const dir = path.resolve(options.dataDir, 'pdns');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'pdns.conf'), powerDnsConfig(options.databaseUrl, options.port, dir));
  const child = spawn(PDNS_SERVER, [`--config-dir=${dir}`, '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  const server = `127.0.0.1:${options.port}`;
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server]);
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pdns_server exited (${child.exitCode}) before answering: ${stderr.trim() || 'no output'}`);
    try {
      await resolver.resolveSoa(options.zone);
      return { server, process: child, stop };
    } catch { /* not answering yet */ }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pdns_server did not answer the SOA of ${options.zone} on ${server} within ${options.timeoutMs ?? 15_000} ms: ${stderr.trim() || 'no output'}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
