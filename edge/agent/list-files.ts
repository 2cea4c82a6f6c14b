// The crt-list and the host map on disk, kept equal to what HAProxy serves at a cost that does not
// grow with the hostnames served: a change that only adds hosts appends their lines (one write
// per file); anything else (a route or certificate changed, a host removed) rewrites both files
// from lines kept in memory (no sort, no re-formatting). Rewriting and sorting 100,000 lines on
// every change was most of the 355 ms an added hostname took at 100,051 (issue 26).
//
// An append is one write(2) of a few hundred bytes with O_APPEND: a killed agent leaves the line
// whole or absent, and either way the next start or reconcile compares HAProxy with Postgres.
import { appendFile } from 'node:fs/promises';
import { crtOptions, type ServedHost } from './desired-diff.ts';
import { writeAtomic, type StatePaths } from './haproxy-files.ts';

export function crtListLine(paths: StatePaths, hostname: string, host: ServedHost): string | undefined {
  return host.inCrtList ? `${paths.certificate(hostname)} ${crtOptions(host.tls13 ?? false)} ${hostname}` : undefined;
}

export function hostMapLine(hostname: string, host: ServedHost): string | undefined {
  return host.route !== null ? `${hostname} ${host.route}` : undefined;
}

const content = (lines: Map<string, string>) => (lines.size ? `${[...lines.values()].join('\n')}\n` : '');

export function createListFiles(paths: StatePaths) {
  /** The lines the files hold now, by hostname. */
  let crt = new Map<string, string>();
  let map = new Map<string, string>();
  /** False until the first rewrite, and after a failed write: the next update rewrites. */
  let synced = false;

  async function rewrite(served: Map<string, ServedHost>): Promise<void> {
    const nextCrt = new Map<string, string>();
    const nextMap = new Map<string, string>();
    // Sorted once here (boot, reconcile): the files read well; appends then go at the end.
    for (const hostname of [...served.keys()].sort()) {
      const host = served.get(hostname)!;
      const c = crtListLine(paths, hostname, host);
      const m = hostMapLine(hostname, host);
      if (c) nextCrt.set(hostname, c);
      if (m) nextMap.set(hostname, m);
    }
    await writeBoth(nextCrt, nextMap);
  }

  async function writeBoth(nextCrt: Map<string, string>, nextMap: Map<string, string>): Promise<void> {
    crt = nextCrt;
    map = nextMap;
    synced = false;
    await writeAtomic(paths.crtList, content(crt));
    await writeAtomic(paths.hostMap, content(map));
    synced = true;
  }

  return {
    /** Both files from the whole served set. */
    rewrite,
    /** After `hostnames` changed in `served`: appends when they only add lines, else rewrites. */
    async update(served: Map<string, ServedHost>, hostnames: Iterable<string>): Promise<void> {
      if (!synced) return rewrite(served);
      const addCrt: [string, string][] = [];
      const addMap: [string, string][] = [];
      let replace = false;
      for (const hostname of new Set(hostnames)) {
        const host = served.get(hostname);
        const c = host && crtListLine(paths, hostname, host);
        const m = host && hostMapLine(hostname, host);
        const haveC = crt.get(hostname);
        const haveM = map.get(hostname);
        if (haveC === c && haveM === m) continue;
        if ((haveC !== undefined && haveC !== c) || (haveM !== undefined && haveM !== m)) { replace = true; break; }
        if (c !== undefined) addCrt.push([hostname, c]);
        if (m !== undefined) addMap.push([hostname, m]);
      }
      if (replace) {
        // In place: a failed write leaves `synced` false and the next update rewrites from `served`.
        const nextCrt = crt;
        const nextMap = map;
        for (const hostname of new Set(hostnames)) {
          const host = served.get(hostname);
          const c = host && crtListLine(paths, hostname, host);
          const m = host && hostMapLine(hostname, host);
          if (c === undefined) nextCrt.delete(hostname); else nextCrt.set(hostname, c);
          if (m === undefined) nextMap.delete(hostname); else nextMap.set(hostname, m);
        }
        await writeBoth(nextCrt, nextMap);
        return;
      }
      // The certificate files were written before (applyChanges); the crt-list names them.
      synced = false;
      if (addCrt.length) await appendFile(paths.crtList, `${addCrt.map(([, l]) => l).join('\n')}\n`);
      if (addMap.length) await appendFile(paths.hostMap, `${addMap.map(([, l]) => l).join('\n')}\n`);
      for (const [h, l] of addCrt) crt.set(h, l);
      for (const [h, l] of addMap) map.set(h, l);
      synced = true;
    },
  };
}
export type ListFiles = ReturnType<typeof createListFiles>;
