// What the agent does to a running HAProxy, in runtime-API commands: certificates in and out of
// the crt-list, host routes in the map, and reading both back (for the reconcile) together with
// the per-host byte counters. No reload anywhere here.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { expectAnswer, type AdminSocket } from './admin-socket.ts';
import { crtOptions, optionsTls13, type HostChange, type ServedHost } from './desired-diff.ts';
import type { StatePaths } from './haproxy-files.ts';
import type { Pause } from './changes-first.ts';

/** Lines parsed between two yields to the event loop (≈ 5 ms). */
const LINES_PER_SLICE = 5_000;

/** Calls `fn` for each line of `text`, pausing (by default: a turn of the event loop) every LINES_PER_SLICE lines. */
export async function eachLine(text: string, fn: (line: string) => void, pause: Pause = yieldToLoop): Promise<void> {
  let from = 0;
  let n = 0;
  while (from < text.length) {
    const end = text.indexOf('\n', from);
    const stop = end === -1 ? text.length : end;
    fn(text.slice(from, stop));
    from = stop + 1;
    if (++n % LINES_PER_SLICE === 0) await pause();
  }
}

export function createHaproxyRuntime(admin: AdminSocket, paths: StatePaths) {
  const certPath = (hostname: string) => paths.certificate(hostname);

  async function putCertificate(hostname: string, pem: string, listed: boolean, tls13: boolean): Promise<void> {
    const file = certPath(hostname);
    // A stored certificate of that path may exist (renewal, or a crt-list entry from the files):
    // then `new` refuses and the transaction below replaces its content.
    const created = await admin.worker(`new ssl cert ${file}`);
    expectAnswer('new ssl cert', created, /New empty certificate store|already exists/);
    expectAnswer('set ssl cert', await admin.worker(`set ssl cert ${file}`, pem), /Transaction (created|updated)/);
    expectAnswer('commit ssl cert', await admin.worker(`commit ssl cert ${file}`), /Success!/);
    if (!listed) {
      expectAnswer('add ssl crt-list', await admin.worker(`add ssl crt-list ${paths.crtList}`, `${file} ${crtOptions(tls13)} ${hostname}`), /Success!/);
    }
  }

  /**
   * A listed certificate with other options (min TLS version): its crt-list entry is removed and
   * added again; the certificate stays loaded in between (only `del ssl cert` unloads it). For
   * that moment a handshake for the name gets the default certificate.
   */
  async function relist(hostname: string, tls13: boolean): Promise<void> {
    const file = certPath(hostname);
    expectAnswer('del ssl crt-list', await admin.worker(`del ssl crt-list ${paths.crtList} ${file}`), /deleted in crtlist|not found|No such/i);
    expectAnswer('add ssl crt-list', await admin.worker(`add ssl crt-list ${paths.crtList}`, `${file} ${crtOptions(tls13)} ${hostname}`), /Success!/);
  }

  async function dropCertificate(hostname: string): Promise<void> {
    const file = certPath(hostname);
    const removed = await admin.worker(`del ssl crt-list ${paths.crtList} ${file}`);
    expectAnswer('del ssl crt-list', removed, /deleted in crtlist|not found|No such/i);
    const deleted = await admin.worker(`del ssl cert ${file}`);
    expectAnswer('del ssl cert', deleted, /deleted!|doesn't exist|not found/i);
  }

  async function setRoute(hostname: string, value: string | null, exists: boolean): Promise<void> {
    // add/set/del map answer nothing on success and a sentence on failure.
    const ok = /^\s*$/;
    if (value === null) {
      const answer = await admin.worker(`del map ${paths.hostMap} ${hostname}`);
      expectAnswer('del map', answer, /^\s*$|not found/i);
    } else if (exists) {
      expectAnswer('set map', await admin.worker(`set map ${paths.hostMap} ${hostname} ${value}`), ok);
    } else {
      expectAnswer('add map', await admin.worker(`add map ${paths.hostMap} ${hostname} ${value}`), ok);
    }
  }

  return {
    /**
     * Applies one host's change. Order matters for clients: a new certificate is committed before
     * the route points at it; a removal takes the route first (requests get the 421 page at once),
     * then the certificate.
     */
    async apply(change: HostChange, routeExists: boolean): Promise<void> {
      if (change.putCertificate) await putCertificate(change.hostname, change.putCertificate.pem, change.putCertificate.listed, change.tls13 ?? false);
      if (change.relist) await relist(change.hostname, change.tls13 ?? false);
      if (change.route !== undefined) await setRoute(change.hostname, change.route, routeExists);
      if (change.dropCertificate) await dropCertificate(change.hostname);
    },
    /**
     * What HAProxy serves now, per host: its route and whether its certificate is listed. At
     * 100,000 hostnames each answer is ≈ 100,000 lines, ≈ 100 ms of parsing: done in slices that
     * yield to the event loop (a change arriving meanwhile is not held up).
     */
    async readServed(pause: Pause = yieldToLoop): Promise<Map<string, ServedHost>> {
      const served = new Map<string, ServedHost>();
      const map = await admin.worker(`show map ${paths.hostMap}`);
      if (/^Unknown map/m.test(map)) throw new Error(`HAProxy does not know the host map: ${map.trim().slice(0, 200)}`);
      await eachLine(map, (line) => {
        // "<ref> <key> <value>"
        const m = /^0x[0-9a-f]+ (\S+) (\S+)$/.exec(line.trim());
        if (m) served.set(m[1]!, { route: m[2]!, inCrtList: false });
      }, pause);
      const list = await admin.worker(`show ssl crt-list ${paths.crtList}`);
      if (!list.startsWith('#')) throw new Error(`HAProxy does not know the crt-list: ${list.trim().slice(0, 200)}`);
      await eachLine(list, (line) => {
        if (line.startsWith('#') || line.trim() === '') return;
        // "<file> [options] <sni filter>": the agent lists exactly one name per certificate.
        const m = /^(\S+)(?: \[([^\]]*)\])? (\S+)\s*$/.exec(line.trim());
        if (!m || m[1] !== certPath(m[3]!)) return;
        const hostname = m[3]!;
        const tls13 = optionsTls13(m[2]);
        const host = served.get(hostname);
        if (host) { host.inCrtList = true; host.tls13 = tls13; }
        else served.set(hostname, { route: null, inCrtList: true, tls13 });
      }, pause);
      return served;
    },
    /** The worker's identity (a new worker after a reload or restart starts counting from zero). */
    async processKey(): Promise<string> {
      const info = await admin.worker('show info');
      const pid = /^Pid: (\d+)$/m.exec(info)?.[1];
      const start = /^Start_time_sec: (\d+)$/m.exec(info)?.[1];
      if (!pid || !start) throw new Error(`unexpected "show info" answer: ${info.slice(0, 200)}`);
      return `${pid}@${start}`;
    },
    /** Per-host byte counters: hostname → bytes in (requests) and out (responses). */
    async readCounters(): Promise<Map<string, { bytesIn: number; bytesOut: number }>> {
      const table = await admin.worker('show table bandwidth');
      if (!table.startsWith('# table: bandwidth')) throw new Error(`unexpected "show table" answer: ${table.slice(0, 200)}`);
      const counters = new Map<string, { bytesIn: number; bytesOut: number }>();
      // A line per host with traffic since the last reload: up to every hostname served.
      await eachLine(table, (line) => {
        const m = /\bkey=(\S+) .*\bbytes_in_cnt=(\d+) bytes_out_cnt=(\d+)/.exec(line);
        if (m) counters.set(m[1]!, { bytesIn: Number(m[2]), bytesOut: Number(m[3]) });
      });
      return counters;
    },
  };
}
export type HaproxyRuntime = ReturnType<typeof createHaproxyRuntime>;
