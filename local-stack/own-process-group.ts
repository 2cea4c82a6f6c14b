// The launcher in a process group of its own. A terminal's Ctrl-C sends SIGINT to the whole
// foreground group, and embedded Postgres and the Temporal dev server are children spawned by
// libraries into the launcher's group: they stopped at once, before the edge agent's last bandwidth
// reading and analytics flush ("the database system is shutting down", issue 24). So `npm start`
// is a thin process that runs the real launcher detached (its own group: no terminal signal
// reaches its children) and forwards each signal to it; the launcher then stops the Node
// services first and Postgres last. The launcher also stops when the thin process dies (its IPC
// channel closes), so nothing is left running behind a killed `npm start`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MARK = 'HOSTGATE_LAUNCHER_OWN_GROUP';

/**
 * In the thin process: starts `entry` detached, forwards signals, exits with its code, and never
 * resolves. In the launcher itself: resolves at once, with `onParentGone` called if the thin
 * process goes away.
 */
export async function inOwnProcessGroup(entry: string | URL, onParentGone: () => void): Promise<void> {
  if (process.env[MARK] === '1') {
    process.once('disconnect', onParentGone);
    // The channel is this process's alone: children spawned with process.env must not try to open it.
    delete process.env.NODE_CHANNEL_FD;
    delete process.env.NODE_CHANNEL_SERIALIZATION_MODE;
    return;
  }
  const file = String(entry).startsWith('file:') ? fileURLToPath(entry) : String(entry);
  const child = spawn(process.execPath, [...process.execArgv, file, ...process.argv.slice(2)], {
    env: { ...process.env, [MARK]: '1' }, stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true,
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => { if (child.exitCode === null) child.kill(signal); });
  }
  const code = await new Promise<number>((resolve) => child.once('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  process.exit(code);
}
