// The dedicated pg.Client a LISTEN needs (the edge agent's change listener, the worker's webhook
// fan-out) is outside the slonik pool and its client-side deadlines, so its waits are bounded
// here. A frozen server (SIGSTOP, a paused VM, a black-holed path) keeps the TCP connection open
// and answers nothing: pg's end() sends Terminate and then waits for the server to close its side,
// which never happens — a shutdown awaiting it hangs until the process is killed.
import pg from 'pg';
import { rejectAfter } from '../process/deadline.ts';

/** How long a LISTEN client's polite close may take before its socket is destroyed. */
export const CLIENT_END_MS = 1000;
/** TCP connect + startup + authentication, and then the LISTEN statement, each. */
export const LISTEN_CONNECT_MS = 5000;

/**
 * `LISTEN <channel>` with a deadline: a server frozen after accepting the connection never
 * answers it, and pg has no timeout of its own for a statement. The caller's error path discards
 * the client (endClient) and reconnects.
 */
export async function listenWithin(client: pg.Client, channel: string, ms: number = LISTEN_CONNECT_MS): Promise<void> {
  await rejectAfter(client.query(`listen ${channel}`), ms, () => new Error(`LISTEN ${channel}: the database did not answer within ${ms} ms`));
}

/**
 * Ends `client` (Terminate, then the server closes) for up to `ms`, else destroys its socket: the
 * caller is never held by a server that does not answer. Never rejects.
 */
export async function endClient(client: pg.Client, ms: number = CLIENT_END_MS): Promise<void> {
  try {
    await rejectAfter(client.end(), ms, () => new Error(`the database did not close the connection within ${ms} ms`));
  } catch {
    client.connection.stream.destroy();
  }
}
