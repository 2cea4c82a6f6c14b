// Setup steps several benchmarks take the same way: their scratch database, a Temporal server, a
// tenant (organization, API key, destination) and a client for the API they start.
import pg from 'pg';
import { migrate } from '../../db/migrate.ts';
import { createDb, type Db } from '../../db/pool.ts';
import { apiKeysRepository, scopes } from '../../db/repositories/api-keys.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { organizationsRepository } from '../../db/repositories/organizations.ts';
import { findTemporalCli, startTemporalDevServer } from '../../local-stack/temporal-dev-server.ts';
import { freePort, onCleanup, progress, type BenchPostgres } from './run.ts';

/** Creates and migrates the scratch database; it is dropped (with its connections) at cleanup. */
export async function createBenchDatabase({ admin, dbName, benchUrl, pgHost }: BenchPostgres): Promise<void> {
  progress(`creating database ${dbName} on ${pgHost}…`);
  await admin.query(`create database ${dbName}`);
  onCleanup(`drop database ${dbName}`, () => admin.query(`drop database if exists ${dbName} with (force)`));
  const migrated = await migrate(benchUrl);
  progress(`migrated (${migrated.applied.length} migrations, version ${migrated.version})`);
}

/** The API's settings when a benchmark measures it: loopback, silent, rate limit set out of reach. */
export const apiUnderLoadEnv = {
  HOSTGATE_HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  HOSTGATE_RATE_LIMIT_PER_SECOND: '1000000000',
  HOSTGATE_RATE_LIMIT_BURST: '1000000000',
};

/** The API's pool over the scratch database, and a plain connection for the benchmark's own queries. */
export async function openBenchDatabase(benchUrl: string, poolSize: number): Promise<{ db: Db; sql: pg.Client }> {
  const db = await createDb(benchUrl, { maximumPoolSize: poolSize });
  onCleanup('API database pool', () => db.end());
  const sql = new pg.Client({ connectionString: benchUrl });
  await sql.connect();
  onCleanup('setup connection', () => sql.end());
  return { db, sql };
}

/** TEMPORAL_ADDRESS when set (`external`), else a headless in-memory dev server stopped at cleanup. */
export async function temporalForBench(namespace: string): Promise<{ address: string; external: boolean; /** The dev server's, for CPU readings. */ pid?: number }> {
  const given = process.env.TEMPORAL_ADDRESS;
  if (given) {
    progress(`Temporal: using TEMPORAL_ADDRESS=${given}`);
    return { address: given, external: true };
  }
  const cli = findTemporalCli(process.env.TEMPORAL_CLI_PATH, progress);
  progress('starting the Temporal dev server (in memory, headless)…');
  const server = await startTemporalDevServer({ cliPath: cli, port: await freePort(), uiPort: null, dbFile: null, namespace, log: progress });
  onCleanup('Temporal dev server', () => server.stop());
  progress(`Temporal dev server ready on ${server.address}`);
  return { address: server.address, external: false, ...(server.process.pid ? { pid: server.process.pid } : {}) };
}

/** An organization, an API key with every scope and one destination, as a vendor would have. */
export async function createBenchTenant(db: Db) {
  const org = await organizationsRepository(db).create({ name: 'Benchmark organization', allowedReturnOrigins: ['https://vendor.example'] });
  const { secret } = await apiKeysRepository(db).create({ organizationId: org.id, scopes, name: 'benchmark' });
  const destination = await destinationsRepository(db).create({ organizationId: org.id, url: 'https://app.vendor.example', host: 'app.vendor.example', port: 443 });
  progress(`organization ${org.id}, API key with scopes ${scopes.join(',')}, destination ${destination.id}`);
  return { org, secret, destination };
}

/** JSON requests to the API with the key; any answer but 2xx throws with its status and body. */
export function apiClient(origin: string, secret: string) {
  const auth = { authorization: `Bearer ${secret}` };
  const api = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { ...auth, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
  return { auth, api };
}
