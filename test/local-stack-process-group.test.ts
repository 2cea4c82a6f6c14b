// Ctrl-C in a terminal signals the whole foreground process group. `npm start` used to have
// embedded Postgres in the launcher's group, so Postgres stopped at once, before the edge agent's
// last bandwidth reading ("the database system is shutting down", issue 24). The launcher now runs
// in a group of its own (local-stack/own-process-group.ts): SIGINT to the terminal's group reaches
// only the thin `npm start` process, which forwards it; the database stops last.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './support/wait.ts';

describe('npm start in its own process group', () => {
  it('a Ctrl-C to the whole group stops the agent while the database is still up, the database last', async () => {
    // detached: the thin process leads a group of its own, as a shell's foreground job does.
    const thin = spawn(process.execPath, [path.resolve('test/support/process-group-launcher.ts')], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    thin.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    thin.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    const exited = new Promise<number | null>((resolve) => thin.once('exit', (code) => resolve(code)));
    try {
      await waitFor('the launcher and its database', async () => output.includes('launcher ready') && output.includes('database ready'), 20_000, 50);
      process.kill(-thin.pid!, 'SIGINT'); // what the terminal does on Ctrl-C
      expect(await exited).toBe(0);
      const lines = output.trim().split('\n').filter((l) => !/ExperimentalWarning|trace-warnings/.test(l));
      expect(lines).not.toContain('database got SIGINT');
      expect(lines.slice(-3)).toEqual(['launcher stopping', 'agent stopped with the database up', 'database stopped']);
    } finally {
      try { process.kill(-thin.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
  }, 40_000);
});
