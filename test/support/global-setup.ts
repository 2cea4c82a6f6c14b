// Starts what every test file shares: one Postgres (a template database migrated once, cloned per
// file) and one Temporal dev server (in memory; each file uses its own task queue).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { migrate, migrationsDir } from '../../db/migrate.ts';
import { startEmbeddedPostgres } from '../../local-stack/embedded-postgres.ts';
import { findTemporalCli, startTemporalDevServer } from '../../local-stack/temporal-dev-server.ts';
import { connectTemporal, ensureSearchAttributes } from '../../temporal/connection.ts';
import { freePort } from './ports.ts';
import { WORKFLOW_STACK_TRACES_VARIABLE } from '../../worker/sdk-switches.ts';

const log = (m: string) => process.stderr.write(`[test setup] ${m}\n`);

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const handles: { stop(): Promise<void> }[] = [];
  (globalThis as { __hostgateTestHandles?: typeof handles }).__hostgateTestHandles = handles;

  // Postgres: DATABASE_URL, else the machine's server on 5432, else an embedded one.
  let adminUrl = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(adminUrl))) {
    if (process.env.DATABASE_URL) throw new Error(`DATABASE_URL is set but unreachable; fix it or unset it to use an embedded Postgres`);
    log('no Postgres on 127.0.0.1:5432; starting an embedded one');
    const port = await freePort();
    const embedded = await startEmbeddedPostgres('.data/test', port, log);
    handles.push(embedded);
    adminUrl = withDatabase(embedded.url, 'postgres');
  }
  const migrationsHash = createHash('sha256');
  for (const f of readdirSync(migrationsDir).sort()) migrationsHash.update(f).update(readFileSync(`${migrationsDir}${f}`));
  const template = `hg_test_template_${migrationsHash.digest('hex').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
  if (exists.rowCount === 0) {
    log(`creating template database ${template}`);
    await admin.query(`create database ${template}`);
    await migrate(withDatabase(adminUrl, template));
  }
  // Databases left behind by an interrupted run (over two hours old; a run beside this one keeps its own).
  const stale = await admin.query(`select datname from pg_database where datname ~ '^hg_test_f_[0-9]+_'`);
  const cutoff = Date.now() / 1000 - 2 * 3600;
  for (const r of stale.rows) {
    const created = Number(String(r.datname).split('_')[3]);
    if (created < cutoff) await admin.query(`drop database if exists "${r.datname as string}" with (force)`).catch(() => undefined);
  }
  await admin.end();
  process.env.HG_TEST_PG_ADMIN_URL = adminUrl;
  process.env.HG_TEST_TEMPLATE_DB = template;

  // Temporal: TEMPORAL_ADDRESS, else a dev server in memory on a free port.
  let address = process.env.TEMPORAL_ADDRESS;
  if (!address) {
    const cli = findTemporalCli(process.env.TEMPORAL_CLI_PATH, log);
    const server = await startTemporalDevServer({ cliPath: cli, port: await freePort(), uiPort: null, dbFile: null, log });
    handles.push(server);
    address = server.address;
  }
  const connection = await connectTemporal(address);
  await ensureSearchAttributes(connection, 'default');
  await connection.close();
  process.env.HG_TEST_TEMPORAL_ADDRESS = address;
  // The workers of the test files run their workflow threads as production does (worker/sdk-switches.ts:
  // no per-promise stack capture). Set here, in jest's own process, because a test file's
  // `process.env` is a copy that the SDK's threads never read.
  process.env[WORKFLOW_STACK_TRACES_VARIABLE] ??= '0';
  log(`ready in ${Date.now() - started} ms (postgres ${new URL(adminUrl).host}, temporal ${address})`);
}
