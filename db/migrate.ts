// Applies the numbered forward-only SQL files in migrations/ with postgrator. An advisory lock
// makes concurrent starts (api and worker booting together, parallel test files) safe: the
// second runner waits, then finds nothing left to do.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';

export const migrationsDir = fileURLToPath(new URL('../migrations/', import.meta.url));
const LOCK_ID = 7_428_113_001;

export interface MigrationResult { applied: string[]; version: number }

export async function migrate(databaseUrl: string, onProgress?: (message: string) => void): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_ID]);
    const postgrator = new Postgrator({
      migrationPattern: `${migrationsDir}*.sql`,
      driver: 'pg',
      schemaTable: 'schema_migrations',
      validateChecksums: true,
      execQuery: (query: string) => client.query(query),
    });
    postgrator.on('migration-started', (m: { filename: string }) => onProgress?.(`applying ${m.filename}`));
    const applied = await postgrator.migrate();
    const version = await postgrator.getDatabaseVersion();
    return { applied: applied.map((m: { filename: string }) => m.filename), version };
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

/** The schema version of a database: the newest migration applied, 0 when none was (no schema_migrations table yet). */
export async function appliedMigrationVersion(client: pg.Client): Promise<number> {
  const table = (await client.query<{ t: string | null }>("select to_regclass('schema_migrations')::text as t")).rows[0]?.t;
  if (!table) return 0;
  return Number((await client.query<{ v: string | null }>('select max(version)::text as v from schema_migrations')).rows[0]?.v ?? 0);
}
