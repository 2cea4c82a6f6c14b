// The real PowerDNS authoritative server (Debian pdns-server + pdns-backend-pgsql) serving the
// challenge zone from a test database's `pdns` schema (migration 010), on a free loopback port.
// Its caches are off, as in production (docs/zero-downtime-moves.md): a row written is answered
// by the next question.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Resolver } from 'node:dns/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../../db/pool.ts';
import { challengeZoneRepository } from '../../db/repositories/challenge-zone.ts';
import { freePort } from './ports.ts';

export const PDNS_BIN = '/usr/sbin/pdns_server';

export interface PowerDns {
  /** `127.0.0.1:<port>`, as HOSTGATE_CHALLENGE_DNS_SERVER takes it. */
  server: string;
  port: number;
  /** What it printed (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts pdns_server for `zone` over the database at `databaseUrl`; ready when it answers the zone's SOA. */
/** `port`: one picked beforehand (freePort) when the service's config must name it first. */
export async function startPowerDns(options: { databaseUrl: string; db: Db; zone: string; port?: number; startTimeoutMs?: number }): Promise<PowerDns> {
  if (!existsSync(PDNS_BIN)) throw new Error(`${PDNS_BIN} is missing: apt-get install pdns-server pdns-backend-pgsql`);
  await challengeZoneRepository(options.db).ensureZone(options.zone);
  const dir = await mkdtemp(path.join(tmpdir(), 'hg-pdns-'));
  const port = options.port ?? await freePort();
  const u = new URL(options.databaseUrl);
  const conf = [
    'launch=gpgsql',
    `gpgsql-host=${u.hostname}`,
    `gpgsql-port=${u.port || '5432'}`,
    `gpgsql-user=${decodeURIComponent(u.username || 'postgres')}`,
    ...(u.password ? [`gpgsql-password=${decodeURIComponent(u.password)}`] : []),
    `gpgsql-dbname=${u.pathname.slice(1)}`,
    // Our own `domains` table is in `public`: PowerDNS reads its tables from the `pdns` schema.
    "gpgsql-extra-connection-parameters=options='-c search_path=pdns'",
    'local-address=127.0.0.1',
    `local-port=${port}`,
    'cache-ttl=0', 'negquery-cache-ttl=0', 'query-cache-ttl=0', 'zone-cache-refresh-interval=0',
    'distributor-threads=1', 'receiver-threads=1',
    `socket-dir=${dir}`,
    'webserver=no', 'security-poll-suffix=',
  ].join('\n');
  await writeFile(path.join(dir, 'pdns.conf'), conf + '\n');
  let output = '';
  const child: ChildProcess = spawn(PDNS_BIN, [`--config-dir=${dir}`, '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  // Ready when it answers the zone's SOA from Postgres (bounded).
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  for (;;) {
    if (child.exitCode !== null) { await stop(); throw new Error(`pdns_server exited (${child.exitCode}):\n${output}`); }
    try {
      await resolver.resolveSoa(options.zone);
      break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) { await stop(); throw new Error(`pdns_server did not answer within ${options.startTimeoutMs ?? 15_000} ms:\n${output}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server: `127.0.0.1:${port}`, port, log: () => output, stop };
}
