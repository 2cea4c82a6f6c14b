// The O(hostnames) parts of a full reconcile, done outside the agent's one-change-at-a-time chain
// and in slices that yield to the event loop (issue 26): at 100,051 hostnames a full pass that
// read HAProxy's view, rebuilt the indexes, diffed and listed the certificate directory inside
// the chain held one added hostname back for 1.85 s (p99 of 50; p50 31.9 ms). What the chain
// still does is apply the (usually empty) result, each entry re-checked there against what
// changed meanwhile (`Reading`).
import { opendir } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { diff, type HostChange, type ServedHost } from './desired-diff.ts';
import type { DesiredHost } from './snapshot.ts';
import type { Pause } from './changes-first.ts';

/** Entries compared or diffed between two pauses (≈ 1–2 ms of work each). */
const SLICE = 1_000;

/** `fn` over `items`, pausing every SLICE items (a sync walk of 100,000 is tens of ms held). */
export async function eachInSlices<T>(items: Iterable<T>, fn: (item: T) => void, pause: Pause = yieldToLoop): Promise<void> {
  let n = 0;
  for (const item of items) {
    fn(item);
    if (++n % SLICE === 0) await pause();
  }
}

/**
 * What happened while a full pass was reading, outside the chain: the domains targeted passes
 * took on and the hostnames any change went through. The full pass leaves both to those passes
 * (their state is newer than its read); the next full pass judges them again.
 */
export interface Reading {
  domains: Set<string>;
  hosts: Set<string>;
}

export const newReading = (): Reading => ({ domains: new Set(), hosts: new Set() });

/** Whether two views of one host agree (the TLS 1.3 option only matters for a listed certificate). */
export function sameServed(a: ServedHost | undefined, b: ServedHost | undefined): boolean {
  if (!a || !b) return a === b;
  return a.route === b.route && a.inCrtList === b.inCrtList && (!a.inCrtList || (a.tls13 ?? false) === (b.tls13 ?? false));
}

/**
 * The hosts where what the agent tracks (`tracked`, live: it may change between slices) differs
 * from what HAProxy said (`seen`), skipping `skip(hostname)`: HAProxy's value, undefined where it
 * serves nothing. Usually empty; HAProxy restarted from older files, or a crash, fills it.
 */
export async function driftOf(
  seen: Map<string, ServedHost>, tracked: Map<string, ServedHost>, skip: (hostname: string) => boolean, pause: Pause = yieldToLoop,
): Promise<Map<string, ServedHost | undefined>> {
  const drift = new Map<string, ServedHost | undefined>();
  let n = 0;
  for (const [hostname, host] of seen) {
    if (!skip(hostname) && !sameServed(host, tracked.get(hostname))) drift.set(hostname, host);
    if (++n % SLICE === 0) await pause();
  }
  // Iterating a Map that changes meanwhile is safe: added keys are visited, deleted ones skipped.
  for (const hostname of tracked.keys()) {
    if (!seen.has(hostname) && !skip(hostname)) drift.set(hostname, undefined);
    if (++n % SLICE === 0) await pause();
  }
  return drift;
}

/**
 * `diff` over a whole desired set in slices. `desired` must not change meanwhile; `seen` may (the
 * agent's live record): a host that changes between slices must be dropped by the caller.
 */
export async function diffInSlices(
  desired: Map<string, DesiredHost>, seen: Map<string, ServedHost>, inScope: (hostname: string, route: string | null) => boolean,
  pause: Pause = yieldToLoop,
): Promise<HostChange[]> {
  const changes: HostChange[] = [];
  let part = new Map<string, DesiredHost>();
  for (const [hostname, want] of desired) {
    part.set(hostname, want);
    if (part.size === SLICE) { changes.push(...diff(part, seen, () => false, [])); part = new Map(); await pause(); }
  }
  changes.push(...diff(part, seen, () => false, []));
  // Removals: served hosts no desired host names, in slices of served hostnames.
  const none = new Map<string, DesiredHost>();
  let names: string[] = [];
  const removals = (list: string[]) => diff(none, seen, (h, route) => !desired.has(h) && inScope(h, route), list);
  for (const hostname of seen.keys()) {
    names.push(hostname);
    if (names.length === SLICE) { changes.push(...removals(names)); names = []; await pause(); }
  }
  changes.push(...removals(names));
  return changes;
}

/**
 * Candidates for the stale-certificate sweep: the files of hosts `isListed` says have no listed
 * certificate now, and temporary files (left by a crash mid-write, or a write under way), read a
 * batch of entries at a time (a directory of 100,000 files read at once is ≈ 100,000 strings made
 * in one callback). Only candidates: a change may list one of them before the sweep, which checks
 * each again inside the chain, where no certificate write is under way.
 */
export async function staleCertificateFiles(certDir: string, isListed: (hostname: string) => boolean): Promise<string[]> {
  const stale: string[] = [];
  const dir = await opendir(certDir, { bufferSize: 256 });
  for await (const entry of dir) {
    const name = entry.name;
    if (name.endsWith('.tmp')) { stale.push(name); continue; }
    if (!isListed(name.replace(/\.pem$/, ''))) stale.push(name);
  }
  return stale;
}
