// What every benchmark script needs around its measurements: cleanup steps run in reverse order
// (also on Ctrl-C), a scratch database URL, free loopback ports.
import pg from 'pg';
export { freePort } from '../../test/support/ports.ts';

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

const cleanups: { name: string; run: () => Promise<unknown> }[] = [];
export const onCleanup = (name: string, run: () => Promise<unknown>) => { cleanups.push({ name, run }); };
let cleaning: Promise<void> | null = null;
/** True once cleanup has begun (an exiting child is then expected, not a failure). */
export const isCleaningUp = () => cleaning !== null;

/** Runs every registered cleanup once, newest first; a step that hangs is abandoned after 30 s. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([step.run(), new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out after 30 s')), 30_000); })]);
      } catch (error) {
        console.error(`cleanup: ${step.name}: ${errorText(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  })();
  return cleaning;
}

let interrupted = false;
export const isInterrupted = () => interrupted;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.log(`\n${signal}: stopping and cleaning up…`);
    void cleanup().then(() => process.exit(130));
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Throws once Ctrl-C was pressed, so a loop stops instead of measuring a stack being torn down. */
export function checkInterrupted(): void {
  if (isInterrupted()) throw new Error('interrupted');
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight; stops at Ctrl-C. */
export async function inParallel<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      checkInterrupted();
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i]!, i);
    }
  }));
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** An integer command-line argument within bounds; anything else exits 2 with the reason. */
export function intArg(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
    process.exit(2);
  }
  return n;
}

export interface BenchPostgres {
  /** A connection to the server's `postgres` database (creates and drops the scratch database). */
  admin: pg.Client;
  /** The scratch database's name (hg_bench_<runId>) and URL. */
  dbName: string;
  benchUrl: string;
  /** host:port, for messages. */
  pgHost: string;
  pgVersion: string;
}

/**
 * Connects to the Postgres the benchmark uses (DATABASE_URL's server, else 127.0.0.1:5432) and
 * names its scratch database; the connection closes at cleanup. Fails with what to do next.
 */
export async function connectBenchPostgres(runId: string): Promise<BenchPostgres> {
  const adminUrl = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `hg_bench_${runId}`;
  const pgHost = new URL(adminUrl).host;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await admin.connect().catch((error: unknown) => {
    throw new Error(`cannot reach Postgres at ${pgHost} (${errorText(error)}); start it or set DATABASE_URL`);
  });
  onCleanup('admin connection', () => admin.end());
  const pgVersion = (await admin.query<{ v: string }>('select version() as v')).rows[0]!.v;
  return { admin, dbName, benchUrl: withDatabase(adminUrl, dbName), pgHost, pgVersion };
}

const startedAt = Date.now();
/** A progress line, stamped with the seconds since the benchmark started. */
export const progress = (msg: string) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s] ${msg}`);

/** A benchmark's headline figures: printed after clean-up as the last line, one JSON object. */
export type Headline = Record<string, string | number | boolean | null>;

/**
 * Runs a benchmark's main, reports a failure (not an interruption: Ctrl-C cleans up itself),
 * cleans up, and prints main's headline figures as the very last line (one JSON object, so a
 * script can read the figures with `tail -n 1`). Sets the exit code: 1 when main threw.
 */
export async function runBenchmark(main: () => Promise<Headline>, shuttingDown: string): Promise<void> {
  let failed = false;
  let headline: Headline | undefined;
  try {
    headline = await main();
  } catch (error) {
    failed = true;
    if (!isInterrupted()) console.error(`\nbenchmark failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  } finally {
    if (!isInterrupted()) {
      progress(`shutting down (${shuttingDown})…`);
      await cleanup();
      progress('done');
    }
  }
  if (isInterrupted()) return;
  console.log(JSON.stringify(headline ?? { failed: true }));
  // A benchmark that ran but failed its own checks set 1 itself (chaos --cluster): kept.
  process.exitCode = failed ? 1 : (process.exitCode ?? 0);
}
