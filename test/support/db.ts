// A database of this test file's own, cloned from the migrated template in milliseconds.
import pg from 'pg';
import { createDb, type Db } from '../../db/pool.ts';
import { randomToken } from '../../security/tokens.ts';

export interface TestDatabase { url: string; name: string; db: Db; drop(): Promise<void> }

function adminUrl(): string {
  const url = process.env.HG_TEST_PG_ADMIN_URL;
  if (!url) throw new Error('HG_TEST_PG_ADMIN_URL is not set: run tests through jest (global setup)');
  return url;
}

export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  // The creation time in the name lets a later run clean up after an interrupted one without
  // touching databases of a run still going on beside it.
  const name = `hg_test_f_${Math.floor(Date.now() / 1000)}_${randomToken(8)}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    const template = options.migrated === false ? 'template0' : process.env.HG_TEST_TEMPLATE_DB!;
    // Concurrent clones of one template can collide ("being accessed by other users"): retry.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${template}`);
        break;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = await createDb(url, { maximumPoolSize: 10 });
  return {
    url,
    name,
    db,
    async drop() {
      await db.end();
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await c.end();
    },
  };
}
