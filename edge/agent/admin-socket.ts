// HAProxy runtime API over the master socket (`haproxy -W -S <socket>`). A command prefixed with
// `@1` is forwarded by the master to the current worker, so the agent keeps talking to the right
// process across reloads. One connection per command, half-closed after sending (the master CLI
// answers and closes then), every call bounded by a timeout.
import net from 'node:net';

export class AdminSocketError extends Error {
  readonly command: string;
  constructor(command: string, message: string) {
    super(`HAProxy runtime API "${command}": ${message}`);
    this.name = 'AdminSocketError';
    this.command = command;
  }
}

export interface AdminSocket {
  /** A command to the master itself (show proc, reload). */
  master(command: string): Promise<string>;
  /** A command to the current worker; `payload` is sent after `<<` (it must hold no empty line). */
  worker(command: string, payload?: string): Promise<string>;
}

export function createAdminSocket(socketPath: string, timeoutMs: number): AdminSocket {
  const send = (text: string, label: string) => new Promise<string>((resolve, reject) => {
    const socket = net.connect(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new AdminSocketError(label, `no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (error) => { clearTimeout(timer); reject(error instanceof AdminSocketError ? error : new AdminSocketError(label, error.message)); });
    socket.on('close', (hadError) => { clearTimeout(timer); if (!hadError) resolve(Buffer.concat(chunks).toString('utf8')); });
    socket.end(text);
  });
  return {
    master: (command) => send(`${command}\n`, command),
    worker(command, payload) {
      if (payload === undefined) return send(`@1 ${command}\n`, command);
      // The payload ends at the first empty line: it must not contain one (validate.ts strips them).
      if (/\n\s*\n/.test(payload.trimEnd())) return Promise.reject(new AdminSocketError(command, 'payload contains an empty line'));
      return send(`@1 ${command} <<\n${payload.trimEnd()}\n\n`, command);
    },
  };
}

/** Throws unless the answer matches what success looks like for this command. */
export function expectAnswer(command: string, answer: string, success: RegExp): string {
  if (!success.test(answer)) throw new AdminSocketError(command, answer.trim().slice(0, 300) || 'empty answer');
  return answer;
}
