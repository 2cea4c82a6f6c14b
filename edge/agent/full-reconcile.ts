// The full pass: Postgres against HAProxy's own view. Everything that grows with the hostnames
// served — reading Postgres (a digest in pages, validated in slices), reading HAProxy's map and
// crt-list, comparing that with what the agent tracks, the diff, listing the certificate directory,
// the deployment report — happens outside the one-change-at-a-time chain, in slices that wait
// while a targeted change is in flight (changes-first.ts), so changes keep flowing meanwhile
// (issue 26: at 100,051 hostnames an added hostname waited up to 1.85 s behind this work). The chain
// only applies the result, each entry checked again there: the domains a targeted pass took on and
// the hosts any change went through since the read began are left to those passes.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Deployment, EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { ApplyChanges } from './change-apply.ts';
import type { Pause } from './changes-first.ts';
import type { DeploymentRecord } from './deployment-record.ts';
import { parseRoute, type ServedHost } from './desired-diff.ts';
import { diffInSlices, driftOf, eachInSlices, newReading, staleCertificateFiles, type Reading } from './full-pass.ts';
import type { StatePaths } from './haproxy-files.ts';
import type { HaproxyRuntime } from './haproxy-runtime.ts';
import type { HealthTracker } from './health.ts';
import type { ProblemBook } from './problem-book.ts';
import type { ServedRecord } from './served-record.ts';
import { buildDesiredInSlices, readServingRows } from './snapshot-read.ts';
import type { CertificateCache } from './snapshot.ts';

// Stale certificate files deleted per turn of the chain (a change waits for at most one turn).
const SWEEP_BATCH = 200;
// Every this many full passes, HAProxy's whole view is read even with no reason to doubt the record.
const VIEW_READ_EVERY = 10;

export function createFullReconcile(deps: {
  repo: Pick<EdgeRepository, 'servingDigestPage' | 'servingFor'>; runtime: HaproxyRuntime; record: ServedRecord;
  cache: CertificateCache; secretBox: SecretBox; problems: ProblemBook; deployments: DeploymentRecord; health: HealthTracker;
  paths: StatePaths; logger: Logger;
  /** The full passes reading now (shared with change-apply.ts, which marks each change's host). */
  readings: Set<Reading>;
  /** Runs `fn` in the agent's one-change-at-a-time chain. */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  applyChanges: ApplyChanges;
  /** Between two slices: changes first. */
  pause: Pause;
  /** The loading of a staged boot under way, if any: full passes wait for it. */
  staging: () => Promise<void> | null;
  /** The heartbeat after a pass. */
  beat: (report: { synced: boolean }) => Promise<void>;
}) {
  const { repo, runtime, record, cache, problems, deployments, health, paths, logger, readings, exclusive, pause } = deps;
  let lastSyncAt: Date | null = null;

  /**
   * HAProxy's view is read in full (≈ 20 MB at 100,000 hostnames, dumped by the worker that serves
   * traffic) only when the agent's record may differ from it: a new worker (start, reload,
   * restart: `viewReadFrom` is the worker last read), a change HAProxy refused (possibly half
   * applied), a failed read, and every VIEW_READ_EVERY passes in case of anything else (someone
   * on the admin socket). Otherwise the record is exact: every runtime change goes through it.
   */
  let viewReadFrom: string | null = null;
  let viewInDoubt = true;
  let passesSinceViewRead = 0;

  async function reconcile(): Promise<{ changes: number; serving: number }> {
    // While a staged boot loads the rest, a full pass would add them one by one through the
    // runtime API (≈ 1.5 ms each); the staged boot reconciles once the reload serves them.
    const staging = deps.staging();
    if (staging) return staging.then(() => ({ changes: 0, serving: record.servingCount() }));
    const reading = newReading();
    readings.add(reading);
    try {
      return await fullPass(reading);
    } finally {
      readings.delete(reading);
    }
  }

  async function fullPass(reading: Reading): Promise<{ changes: number; serving: number }> {
    const readAt = Date.now();
    // Where a pass's time goes, and the longest the event loop was held meanwhile (what a change
    // arriving then waits at least): logged once per pass.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const ms: Record<string, number> = {};
    const lap = (name: string) => { ms[name] = Math.round(performance.now() - t0); };
    try {
      return await passSteps(reading, readAt, lap);
    } finally {
      loop.disable();
      logger.info({ ...ms, loop_delay_max_ms: Math.round(loop.max / 1e6) }, 'edge: full reconcile done');
    }
  }

  async function passSteps(reading: Reading, readAt: number, lap: (name: string) => void): Promise<{ changes: number; serving: number }> {
    const rows = await readServingRows(repo, cache, pause);
    lap('postgres_read_ms');
    const desired = await buildDesiredInSlices(rows, deps.secretBox, cache, pause);
    lap('validated_ms');
    const certificateIds = new Set<string>();
    await eachInSlices([...desired.hosts.values()], (want) => {
      if (reading.domains.has(want.domainId)) desired.hosts.delete(want.hostname);
      else if (want.certificate) certificateIds.add(want.certificate.id);
    }, pause);
    cache.retain(certificateIds);
    problems.note(desired, true);
    const untouched = (h: string) => !reading.hosts.has(h);
    // HAProxy's own view, when the agent's record may differ from it; else the record itself
    // (live: hosts that change during the diff are in `reading.hosts` and dropped in the chain).
    const worker = await runtime.processKey().catch(() => null);
    const readView = viewInDoubt || worker === null || worker !== viewReadFrom || passesSinceViewRead >= VIEW_READ_EVERY;
    let seen = record.hosts;
    if (readView) {
      viewInDoubt = false;
      seen = await runtime.readServed(pause).catch((error: unknown) => { viewInDoubt = true; throw error; });
      viewReadFrom = worker;
      passesSinceViewRead = 0;
    } else {
      passesSinceViewRead++;
    }
    lap('haproxy_read_ms');
    // Where the agent's own record differs from HAProxy (a restart from older files, a crash
    // between the runtime API and the record): HAProxy's view wins, set in the chain below.
    const drift = readView ? await driftOf(seen, record.hosts, (h) => !untouched(h), pause) : new Map<string, ServedHost | undefined>();
    const planned = await diffInSlices(desired.hosts, seen, (h, route) => untouched(h) && !reading.domains.has(record.domainOfServed(h, route)), pause);
    lap('compared_ms');
    const outcome = await exclusive(async () => {
      const corrected: string[] = [];
      for (const [h, host] of drift) {
        if (!untouched(h)) continue;
        record.set(h, host);
        corrected.push(h);
      }
      // A change planned from the read is dropped when something newer went through its host or
      // its domain meanwhile (a targeted pass's newer change is never undone).
      const changes = planned.filter((c) => untouched(c.hostname) && !reading.domains.has(c.domainId)
        && !reading.domains.has(record.domainOfServed(c.hostname, record.hosts.get(c.hostname)?.route)));
      const { removed, failed } = await deps.applyChanges(changes, corrected);
      if (corrected.length > 0) logger.warn({ hosts: corrected.length }, 'edge: reconcile: the agent\'s record differed from HAProxy; took HAProxy\'s view');
      if (changes.length > 0) logger.info({ changes: changes.length, failed }, 'edge: reconcile repaired drift');
      return { changes: changes.length, removed, failed };
    });
    lap('applied_ms');
    if (readView) await sweepStaleCertificates().catch((error) => logger.warn({ err: String(error) }, 'edge: removing stale certificate files failed; the next reconcile retries'));
    lap('swept_ms');
    // What is served now with its certificate; the domains targeted passes took on are theirs to report.
    const all: Deployment[] = [];
    await eachInSlices(desired.hosts.values(), (h) => {
      const served = record.hosts.get(h.hostname);
      if (h.certificate && !reading.domains.has(h.domainId) && served?.inCrtList
        && parseRoute(served.route ?? '')?.certificateId === h.certificate.id) all.push({ domainId: h.domainId, certificateId: h.certificate.id });
    }, pause);
    // Reports, outside the chain: they change nothing HAProxy serves. (`reading` stays registered
    // until the prune: a targeted pass's deployment meanwhile is not pruned.)
    await deployments.afterFullPass(all, outcome.removed, reading.domains, pause);
    lap('reported_ms');
    lastSyncAt = new Date();
    if (outcome.failed === 0) health.noteSynced(readAt, true); else health.noteFailure();
    await deps.beat({ synced: outcome.failed === 0 });
    return { changes: outcome.changes, serving: record.servingCount() };
  }

  /**
   * Deletes certificate files no listed host uses (left by a crash between the runtime API and
   * the files). The directory is listed outside the chain; each candidate is checked again and
   * deleted inside it, a batch per turn, where no certificate is being written: a file a
   * concurrent add has just written is listed by then and stays.
   */
  async function sweepStaleCertificates(): Promise<void> {
    if (deps.staging()) return;
    const candidates = await staleCertificateFiles(paths.certDir, (h) => record.hosts.get(h)?.inCrtList === true);
    for (let i = 0; i < candidates.length; i += SWEEP_BATCH) {
      await exclusive(async () => {
        for (const name of candidates.slice(i, i + SWEEP_BATCH)) {
          if (!name.endsWith('.tmp') && record.hosts.get(name.replace(/\.pem$/, ''))?.inCrtList) continue;
          await rm(path.join(paths.certDir, name), { force: true });
        }
      });
    }
  }

  return {
    reconcile,
    /** HAProxy refused a change: the next pass reads its whole view. */
    doubtView(): void { viewInDoubt = true; },
    /**
     * The worker `worker` loaded exactly the agent's record (the staged boot's reload, in the
     * chain): the pass that follows need not dump and parse its view.
     */
    viewIsRecord(worker: string): void { viewReadFrom = worker; viewInDoubt = false; passesSinceViewRead = 0; },
    lastSyncAt: () => lastSyncAt,
  };
}
export type FullReconcile = ReturnType<typeof createFullReconcile>;
