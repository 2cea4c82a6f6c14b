// The edge agent: a small reconciler beside one HAProxy. Snapshot (Postgres) → desired state →
// diff against what HAProxy serves → apply through the runtime API → write the same to the files
// → report (deployments, heartbeat, problems). Every step is idempotent: a crash anywhere is
// repaired by the next pass. Changes arrive by LISTEN/NOTIFY, a poll catches what was missed,
// and a periodic full reconcile compares HAProxy's own view (`show map`, `show ssl crt-list`)
// with Postgres. With Postgres gone, HAProxy keeps serving what it has.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Db } from '../../db/pool.ts';
import { edgeRepository, type Deployment, type EdgeRepository } from '../../db/repositories/edge.ts';
import { listenForEdgeChanges, type EdgeListener } from '../../db/repositories/edge-listener.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { createAdminSocket } from './admin-socket.ts';
import { createBandwidthMeter } from './bandwidth-meter.ts';
import { destinationHosts, diff, parseRoute, routeValue, type HostChange, type ServedHost } from './desired-diff.ts';
import { createListFiles } from './list-files.ts';
import { ServedIndex } from './served-index.ts';
import { buildDesiredInSlices, readServingRows } from './snapshot-read.ts';
import {
  ensureDefaultCertificate, prepareStateDir, readLists, removeCertificate, removeStaleCertificates, renderConfig, statePaths,
  writeAtomic, writeCertificate,
} from './haproxy-files.ts';
import { createHaproxyRuntime, type HaproxyRuntime } from './haproxy-runtime.ts';
import { diffInSlices, driftOf, eachInSlices, newReading, staleCertificateFiles, type Reading } from './full-pass.ts';
import { allocatorPreload, createSupervisor } from './haproxy-supervisor.ts';
import { createOriginAddresses, type Lookup } from './origin-addresses.ts';
import { buildDesired, CertificateCache, type Desired, type DesiredHost } from './snapshot.ts';
import { ProblemBook } from './problem-book.ts';
import { Intervals } from './intervals.ts';
import type { ServingRow } from '../../db/repositories/edge.ts';
import { createDeploymentReport, type DeploymentReport } from './deployment-report.ts';
import { createChangesFirst } from './changes-first.ts';
import { createHealthTracker } from './health.ts';
import { createTrafficAnalytics } from './analytics-flush.ts';
import { rejectAfter } from '../../process/deadline.ts';
import type { AgentSettings } from './settings.ts';
import { coveringWildcard } from '../../model/wildcards.ts';

// Notified domains are applied together after this pause (a burst of commits → one pass).
const NOTIFY_BATCH_MS = 10;
// Polling looks back this far before its last mark: commits land with an earlier hg_now().
const POLL_OVERLAP_MS = 5_000;
// How often the agent checks which origin addresses are due for a lookup (each has its own TTL).
const ORIGIN_REFRESH_TICK_MS = 1_000;
// Stop budget. The process gets SHUTDOWN_GRACE_MS (15 s, process/boot.ts) for its whole close;
// past it, it exits without having stopped HAProxy, which runs detached and would go on serving
// unsupervised. With Postgres frozen, the work before HAProxy stops (a change in progress, the
// last bandwidth reading) would wait on the pool's own limits (30 s and more), so it gets a bound
// of its own and HAProxy's soft stop always fits: 2 s + 10 s, plus ≤ 1 s for the pool's end in
// agent-main.ts.
const STOP_DATABASE_WORK_MS = 2_000;
const HAPROXY_SOFT_STOP_MS = 10_000;
// The analytics lines that arrive while HAProxy drains are flushed after it: 2 + 10 + 1 + 1 s < 15 s.
const STOP_LAST_FLUSH_MS = 1_000;
// Stale certificate files deleted per turn of the chain (a change waits for at most one turn).
const SWEEP_BATCH = 200;
// Every this many full passes, HAProxy's whole view is read even with no reason to doubt the record.
const VIEW_READ_EVERY = 10;
// Every this many full passes, all deployments are recorded again and the others pruned.
const FULL_REPORT_EVERY = 10;

/** Stand-ins for HAProxy and Postgres, for unit tests of the reconcile (test/edge-units-agent.test.ts). */
export interface AgentOverrides {
  runtime?: HaproxyRuntime;
  repository?: EdgeRepository;
  reportDeployments?: DeploymentReport;
  originLookup?: (host: string) => Promise<Lookup>;
}

export function createEdgeAgent(deps: { db: Db; secretBox: SecretBox; settings: AgentSettings; logger: Logger; overrides?: AgentOverrides }) {
  const { settings: s, logger } = deps;
  const repo = deps.overrides?.repository ?? edgeRepository(deps.db);
  const reportDeployments = deps.overrides?.reportDeployments ?? createDeploymentReport(deps.db, s.edgeId);
  const paths = statePaths(s.stateDir);
  const admin = createAdminSocket(paths.masterSocket, s.socketTimeoutMs);
  const runtime = deps.overrides?.runtime ?? createHaproxyRuntime(admin, paths);
  const cache = new CertificateCache();
  const origins = createOriginAddresses({ admin, mapFile: paths.originMap, resolvers: s.resolvers, maxRefreshMs: s.originDnsRefreshMs, logger, lookup: deps.overrides?.originLookup });
  /** What HAProxy serves, as the agent last read or changed it. */
  let served = new Map<string, ServedHost>();
  /** Its indexes (a domain's hosts, destinations in use), so one change does not walk them all. */
  const index = new ServedIndex();
  const lists = createListFiles(paths);
  /** Every hostname → domain seen by this process (bandwidth of hosts removed since still counts). */
  const domainByHost = new Map<string, string>();
  const problems = new ProblemBook(logger);
  const loops = new Intervals(logger);
  let listener: EdgeListener | null = null;
  let pollMark: string | null = null;
  let chain: Promise<unknown> = Promise.resolve();
  const pending = new Set<string>();
  let flushTimer: NodeJS.Timeout | null = null;
  let lastSyncAt: Date | null = null;
  /** A staged boot is loading the rest (loadRest below): full reconciles wait for it. */
  let staging: Promise<void> | null = null;
  /** Targeted changes in flight: a full pass's slices wait for them (changes-first.ts). */
  const changesFirst = createChangesFirst();
  const pause = changesFirst.pause;
  /** Ends the in-flight mark a notification set (schedule), once its targeted pass is done. */
  let notifiedDone: (() => void) | null = null;

  const supervisor = createSupervisor({
    binary: s.haproxyBin, preload: allocatorPreload(s.haproxyMalloc), paths, admin, logger, startTimeoutMs: s.startTimeoutMs,
    onRestarted: () => { void reconcile().catch((error) => logger.warn({ err: error }, 'reconcile after the haproxy restart failed; the next one retries')); },
  });
  // Several edges (docs/edge.md): what this one says about itself, with every heartbeat and on
  // its health endpoint (edge/agent/health.ts).
  const health = createHealthTracker({ maxLagMs: s.healthMaxLagMs, probeHaproxy: () => runtime.processKey() });
  const beat = async (report: { synced: boolean; starting?: boolean }) => {
    const h = report.starting ? health.current() : await health.check();
    await repo.heartbeat(s.edgeId, { servingHostnames: servingCount(), problems: allProblems(), ...report, health: { state: h.state, syncLagMs: h.lagMs, heartbeatIntervalMs: s.heartbeatIntervalMs } });
  };
  const meter = createBandwidthMeter({
    edgeId: s.edgeId, runtime, repository: repo, logger,
    // A name with no route of its own was served by the wildcard over it (docs/wildcards.md).
    domainOf: (h) => domainOfHost(h) ?? (coveringWildcard(h) ? domainOfHost(coveringWildcard(h)!) : null),
  });
  function domainOfHost(h: string): string | null {
    return domainByHost.get(h) ?? (served.get(h)?.route ? parseRoute(served.get(h)!.route!)?.domainId ?? null : null);
  }

  const traffic = createTrafficAnalytics({ db: deps.db, admin, edgeId: s.edgeId, port: s.trafficLogPort ?? 0, portFile: `${paths.dir}/traffic-log.port`, logger });

  /** Runs `fn` after every earlier change: HAProxy and its files see one change at a time. */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  }

  const remember = (served: Map<string, ServedHost>) => {
    for (const [h, v] of served) { const d = v.route && parseRoute(v.route)?.domainId; if (d) domainByHost.set(h, d); }
    index.rebuild(served);
  };
  const allProblems = () => problems.all();
  const servingCount = () => index.servingCount();

  /**
   * Applies changes host by host; one host's failure is logged and does not stop the others.
   * `corrected`: hosts whose tracked state a full pass just set to HAProxy's (their file lines too).
   */
  async function applyChanges(changes: HostChange[], corrected: string[] = []): Promise<{ deployed: Deployment[]; removed: string[]; failed: number }> {
    const deployed: Deployment[] = [];
    const removed: string[] = [];
    const touched: string[] = [...corrected];
    let failed = 0;
    for (const change of changes) {
      const before = served.get(change.hostname);
      try {
        await runtime.apply(change, before?.route != null);
      } catch (error) {
        failed++;
        viewInDoubt = true;
        logger.error({ err: error, host: change.hostname }, 'edge: HAProxy refused a change; the next reconcile retries');
        // Possibly half applied: a full pass reading meanwhile cannot trust its view of this host.
        for (const r of readings) r.hosts.add(change.hostname);
        continue;
      }
      // Marked once applied: a full pass reading since then (or during) leaves this host alone.
      for (const r of readings) r.hosts.add(change.hostname);
      const after: ServedHost = {
        route: change.route !== undefined ? change.route : before?.route ?? null,
        inCrtList: change.putCertificate ? true : change.dropCertificate ? false : before?.inCrtList ?? false,
        tls13: change.tls13 ?? before?.tls13 ?? false,
      };
      if (after.route === null && !after.inCrtList) served.delete(change.hostname);
      else served.set(change.hostname, after);
      index.note(change.hostname, before, served.get(change.hostname));
      touched.push(change.hostname);
      if (change.putCertificate) await writeCertificate(paths, change.hostname, change.putCertificate.pem);
      if (change.dropCertificate) await removeCertificate(paths, change.hostname);
      if (change.domainId) { domainByHost.set(change.hostname, change.domainId); index.link(change.domainId, change.hostname); }
      if (change.certificateId && change.domainId) deployed.push({ domainId: change.domainId, certificateId: change.certificateId });
      else if (change.route === null && change.domainId) removed.push(change.domainId);
    }
    if (touched.length > 0) {
      await lists.update(served, touched);
      // Not awaited: a new destination's first lookup must not delay its route (HAProxy's
      // do-resolve answers for it until the origin map has its address).
      origins.track(index.destinations()).catch((error) => logger.warn({ err: String(error) }, 'edge: updating origin addresses failed; the next refresh retries'));
    }
    return { deployed, removed, failed };
  }

  /**
   * What this process has recorded in edge_deployments (domain → certificate). A full pass sends
   * only the entries that differ from it, and everything (with the prune) when the table's count
   * for this edge differs from it (rows deleted elsewhere, e.g. with the node) or every
   * FULL_REPORT_EVERY passes: at 20,051 hostnames re-recording all of them took ≈ 600 ms of
   * Postgres on every pass, beside the changes being applied.
   */
  const recorded = new Map<string, string>();
  let passesSinceWholeReport = Number.POSITIVE_INFINITY;
  const noteRecorded = (deployed: readonly Deployment[], removed: readonly string[]) => {
    for (const d of deployed) recorded.set(d.domainId, d.certificateId);
    for (const id of removed) recorded.delete(id);
  };

  async function report(deployed: Deployment[], removed: string[]) {
    try {
      await reportDeployments(deployed, removed);
      noteRecorded(deployed, removed);
    } catch (error) {
      logger.warn({ err: error }, 'edge: could not record deployments; the next reconcile records them');
    }
  }

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

  /** What happened meanwhile, for each full pass reading now (full-pass.ts, Reading). */
  const readings = new Set<Reading>();
  /** The domain a served host belongs to, from its route or (no route) what was seen before. */
  const domainOfServed = (hostname: string, route: string | null | undefined) => (route && parseRoute(route)?.domainId) || domainByHost.get(hostname) || '';

  /**
   * Full pass: Postgres against HAProxy's own view. Everything that grows with the hostnames
   * served — reading Postgres (validated in slices), reading HAProxy's map and crt-list, comparing
   * that with what the agent tracks, the diff, listing the certificate directory — happens outside
   * the one-change-at-a-time chain, in slices, so changes keep flowing meanwhile (issue 26: at
   * 100,051 hostnames an added hostname waited up to 1.85 s behind this work). The chain only
   * applies the result, each entry checked again there: the domains a targeted pass took on and
   * the hosts any change went through since the read began are left to those passes.
   */
  async function reconcile(): Promise<{ changes: number; serving: number }> {
    // While a staged boot loads the rest, a full pass would add them one by one through the
    // runtime API (≈ 1.5 ms each); the staged boot reconciles once the reload serves them.
    if (staging) return staging.then(() => ({ changes: 0, serving: servingCount() }));
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
    let seen = served;
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
    const drift = readView ? await driftOf(seen, served, (h) => !untouched(h), pause) : new Map<string, ServedHost | undefined>();
    const planned = await diffInSlices(desired.hosts, seen, (h, route) => untouched(h) && !reading.domains.has(domainOfServed(h, route)), pause);
    lap('compared_ms');
    const outcome = await exclusive(async () => {
      const corrected: string[] = [];
      for (const [h, host] of drift) {
        if (!untouched(h)) continue;
        const before = served.get(h);
        if (host) served.set(h, host); else served.delete(h);
        index.note(h, before, host);
        const d = host?.route ? parseRoute(host.route)?.domainId : undefined;
        if (d) domainByHost.set(h, d);
        corrected.push(h);
      }
      // A change planned from the read is dropped when something newer went through its host or
      // its domain meanwhile (a targeted pass's newer change is never undone).
      const changes = planned.filter((c) => untouched(c.hostname) && !reading.domains.has(c.domainId)
        && !reading.domains.has(domainOfServed(c.hostname, served.get(c.hostname)?.route)));
      const { removed, failed } = await applyChanges(changes, corrected);
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
      if (h.certificate && !reading.domains.has(h.domainId) && served.get(h.hostname)?.inCrtList
        && parseRoute(served.get(h.hostname)?.route ?? '')?.certificateId === h.certificate.id) all.push({ domainId: h.domainId, certificateId: h.certificate.id });
    }, pause);
    // Reports, outside the chain: they change nothing HAProxy serves. (`reading` stays registered
    // until the prune: a targeted pass's deployment meanwhile is not pruned.)
    const whole = passesSinceWholeReport >= FULL_REPORT_EVERY || (await repo.deploymentCount(s.edgeId)) !== recorded.size;
    const send = whole ? all : all.filter((d) => recorded.get(d.domainId) !== d.certificateId);
    await reportDeployments(send, outcome.removed, pause);
    noteRecorded(send, outcome.removed);
    if (whole) {
      const kept = new Set([...all.map((d) => d.domainId), ...reading.domains]);
      await repo.pruneDeployments(s.edgeId, [...kept]);
      for (const id of [...recorded.keys()]) if (!kept.has(id)) recorded.delete(id);
      passesSinceWholeReport = 0;
    } else {
      passesSinceWholeReport++;
    }
    lap('reported_ms');
    lastSyncAt = new Date();
    if (outcome.failed === 0) health.noteSynced(readAt, true); else health.noteFailure();
    await beat({ synced: outcome.failed === 0 });
    return { changes: outcome.changes, serving: servingCount() };
  }

  /**
   * Deletes certificate files no listed host uses (left by a crash between the runtime API and
   * the files). The directory is listed outside the chain; each candidate is checked again and
   * deleted inside it, a batch per turn, where no certificate is being written: a file a
   * concurrent add has just written is listed by then and stays.
   */
  async function sweepStaleCertificates(): Promise<void> {
    if (staging) return;
    const candidates = await staleCertificateFiles(paths.certDir, (h) => served.get(h)?.inCrtList === true);
    for (let i = 0; i < candidates.length; i += SWEEP_BATCH) {
      await exclusive(async () => {
        for (const name of candidates.slice(i, i + SWEEP_BATCH)) {
          if (!name.endsWith('.tmp') && served.get(name.replace(/\.pem$/, ''))?.inCrtList) continue;
          await rm(path.join(paths.certDir, name), { force: true });
        }
      });
    }
  }

  /** Targeted pass for notified or polled domains. */
  function applyDomains(domainIds: string[]): Promise<number> {
    for (const reading of readings) for (const id of domainIds) reading.domains.add(id);
    return changesFirst.run(() => exclusive(async () => {
      const ids = new Set(domainIds);
      const desired = buildDesired(await repo.servingFor(domainIds), deps.secretBox, cache, domainIds);
      problems.note(desired, false);
      const changes = diff(desired.hosts, served, (h, route) => ids.has(domainOfServed(h, route)), index.hostsOf(ids));
      const { deployed, removed, failed } = await applyChanges(changes);
      if (failed > 0) health.noteFailure();
      if (changes.length > 0) logger.info({ domains: domainIds.length, changes: changes.length }, 'edge: applied domain changes');
      await report(deployed, removed);
      return changes.length;
    }));
  }

  const servedFor = (h: DesiredHost): ServedHost => ({ route: routeValue(h), inCrtList: h.certificate !== null, tls13: h.minTls === '1.3' });

  /**
   * The second stage of a staged boot (issue 26). HAProxy 2.6 on OpenSSL 3.0 loads ≈ 1,000
   * certificates per second of one core (perf: 55 % in OSSL_DECODER_CTX_new_for_pkey, a decoder
   * context built for every private key and every DH-parameter probe; docs/scale.md), so at
   * 100,000 hostnames nothing was served for 98 s of HAProxy's start plus the agent's own work.
   * Now the boot reads only the busiest HOSTGATE_EDGE_BOOT_FIRST_HOSTS (servingFirst) and HAProxy
   * serves them within seconds; here the rest are read, validated in slices that let the event
   * loop breathe, written, and loaded by one reload (the old worker serves the first ones until
   * the new one has loaded everything); then a full reconcile for whatever changed meanwhile.
   */
  async function loadRest(first: Set<string>, t0: number): Promise<void> {
    const more = await buildDesiredInSlices((await repo.servingAll()).filter((r) => !first.has(r.domain_id)), deps.secretBox, cache);
    problems.note(more, false);
    for (const h of more.hosts.values()) if (h.certificate) await writeCertificate(paths, h.hostname, h.certificate.pem);
    logger.info({ hosts: more.hosts.size, ms: Math.round(performance.now() - t0) }, 'edge: staged boot: the rest is written; reloading HAProxy to load it');
    await exclusive(async () => {
      for (const h of more.hosts.values()) if (!served.has(h.hostname)) served.set(h.hostname, servedFor(h));
      remember(served);
      await lists.rewrite(served);
      await origins.track(index.destinations());
      // A reload resets HAProxy's counters: record them first.
      await meter.readOnce().catch((error) => logger.warn({ err: String(error) }, 'edge: bandwidth reading before reload failed'));
      await traffic.flush().catch((error) => logger.warn({ err: String(error) }, 'edge: analytics flush before reload failed'));
      await supervisor.reload();
      // The new worker loaded exactly the files just written from the record, with no change in
      // between (this is the chain): its view is the record, and the full pass that follows the
      // boot need not dump and parse it (≈ 20 MB at 100,000 hostnames, beside the first adds).
      const worker = await runtime.processKey().catch(() => null);
      if (worker !== null) { viewReadFrom = worker; viewInDoubt = false; passesSinceViewRead = 0; }
    });
    logger.info({ serving: servingCount(), ms: Math.round(performance.now() - t0) }, 'edge: staged boot: serving every hostname');
  }

  function schedule(domainId: string) {
    pending.add(domainId);
    if (flushTimer) return;
    // In flight from the notification on: a full pass's next slice waits for it.
    const done = changesFirst.begin();
    notifiedDone = done;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      notifiedDone = null;
      const ids = [...pending];
      pending.clear();
      applyDomains(ids).catch((error) => logger.warn({ err: error, domains: ids.length }, 'edge: applying notified changes failed; polling retries')).finally(done);
    }, NOTIFY_BATCH_MS);
  }

  async function poll() {
    const mark = await repo.now();
    if (pollMark === null) { pollMark = mark; return; }
    const since = new Date(new Date(pollMark).getTime() - POLL_OVERLAP_MS).toISOString();
    const readAt = Date.now();
    const ids = await repo.changedSince(since);
    pollMark = mark;
    if (ids.length > 0) await applyDomains(ids);
    health.noteSynced(readAt, false);
  }

  async function writeConfig(): Promise<boolean> {
    const config = await renderConfig(paths, { ...s, trafficLogPort: traffic.port });
    const old = existsSync(paths.config) ? await readFile(paths.config, 'utf8') : null;
    if (old === config) return false;
    await writeAtomic(paths.config, config);
    return true;
  }

  return {
    paths,
    supervisor,
    /** Boot: snapshot → files → HAProxy (or adopt the running one) → reconcile → background loops. */
    async start(): Promise<{ mode: 'started' | 'adopted'; serving: number }> {
      health.markStarting();
      const t0 = performance.now();
      const phases: Record<string, number> = {};
      const phase = (name: string) => { phases[name] = Math.round(performance.now() - t0); };
      await prepareStateDir(paths);
      await ensureDefaultCertificate(paths);
      // Before HAProxy: the configuration names the port, and lines sent before it listens are lost.
      await traffic.start();
      let desired: Desired | null = null;
      let staged = false;
      try {
        // The node row first: deployments reference it.
        await beat({ synced: false, starting: true });
        let rows: readonly ServingRow[];
        if (s.bootFirstHosts > 0 && (await supervisor.workerPid()) === null) {
          // One more row than the first stage holds tells whether there is a rest to load.
          const busiest = await repo.busiestDomains(s.bootFirstHosts).catch(() => []);
          rows = await repo.servingFirst(busiest, s.bootFirstHosts + 1);
          staged = rows.length > s.bootFirstHosts;
          if (staged) rows = rows.slice(0, s.bootFirstHosts);
        } else {
          rows = await repo.servingAll();
        }
        phase('snapshot_read_ms');
        desired = buildDesired(rows, deps.secretBox, cache);
        phase('snapshot_validated_ms');
        problems.note(desired, true);
      } catch (error) {
        // Control plane down at boot: serve what the files from the last run hold.
        logger.error({ err: String(error) }, 'edge: cannot read the snapshot from Postgres; serving the files of the last run');
      }
      const running = (await supervisor.workerPid()) !== null;
      let mode: 'started' | 'adopted';
      if (!running) {
        if (desired) {
          // Fresh start: the files are the whole desired state; HAProxy loads them at once
          // (far faster than thousands of runtime additions).
          const next = new Map<string, ServedHost>();
          for (const h of desired.hosts.values()) {
            if (h.certificate) await writeCertificate(paths, h.hostname, h.certificate.pem);
            next.set(h.hostname, servedFor(h));
          }
          served = next;
          await lists.rewrite(served);
          await removeStaleCertificates(paths, served);
          phase('files_written_ms');
        } else {
          served = await readLists(paths);
          await lists.rewrite(served);
        }
        // HAProxy loads the origin map with the rest (it must exist, even empty).
        await origins.prepare(destinationHosts(served));
        phase('origins_resolved_ms');
        await writeConfig();
        mode = await supervisor.start();
        phase('haproxy_started_ms');
      } else {
        const changed = await writeConfig();
        mode = await supervisor.start();
        served = await runtime.readServed();
        await origins.prepare(destinationHosts(served));
        if (changed) {
          // The template or settings changed since that HAProxy started: reload, after the
          // files match what it serves and its counters are recorded (a reload resets them).
          await lists.rewrite(served);
          await meter.readOnce().catch((error) => logger.warn({ err: String(error) }, 'edge: bandwidth reading before reload failed'));
          await traffic.flush().catch((error) => logger.warn({ err: String(error) }, 'edge: analytics flush before reload failed'));
          await supervisor.reload();
        }
      }
      remember(served);
      await origins.adopt().catch((error) => logger.warn({ err: String(error) }, 'edge: reading the origin map failed; HAProxy resolves origins itself until the next refresh'));
      if (desired && staged) {
        const loading = loadRest(new Set(desired.domainIds), performance.now());
        staging = loading.catch((error) => { logger.error({ err: String(error) }, 'edge: staged boot: loading the rest failed; the reconcile adds what is missing'); })
          .finally(() => { staging = null; });
        // Once the rest is served, the full pass catches up on what changed meanwhile.
        void staging.then(() => reconcile()).catch((error) => logger.warn({ err: String(error) }, 'edge: reconcile after the staged boot failed; retrying on schedule'));
      } else if (desired) {
        await reconcile().catch((error) => logger.warn({ err: String(error) }, 'edge: first reconcile failed; retrying on schedule'));
        phase('first_reconcile_ms');
      }
      logger.info({ mode, serving: servingCount(), staged, problems: allProblems().length, port: s.httpsPort, ...phases }, 'edge: serving');
      if (s.databaseUrl) {
        listener = listenForEdgeChanges(s.databaseUrl, {
          onDomain: schedule,
          onReconnected: () => { void poll().catch(() => undefined); },
          onLost: (error) => logger.warn({ err: String(error) }, 'edge: change listener lost; polling until it is back'),
        });
      }
      void poll().catch(() => undefined);
      loops.every(s.pollIntervalMs, 'poll for changes', poll);
      loops.every(s.reconcileIntervalMs, 'reconcile', reconcile);
      loops.every(s.heartbeatIntervalMs, 'heartbeat', () => beat({ synced: false }));
      loops.every(s.bandwidthIntervalMs, 'bandwidth reading', () => meter.readOnce());
      if (traffic.port !== 0) loops.every(s.analyticsFlushMs, 'traffic analytics flush', () => traffic.flush());
      loops.every(ORIGIN_REFRESH_TICK_MS, 'origin address refresh', () => origins.refresh());
      await beat({ synced: false }).catch(() => undefined);
      return { mode, serving: servingCount() };
    },
    reconcile,
    applyDomains,
    readBandwidth: () => meter.readOnce(),
    traffic,
    /** Reloads HAProxy from its files (counters recorded first). */
    async reload(): Promise<void> {
      await exclusive(async () => {
        await meter.readOnce().catch((error) => logger.warn({ err: String(error) }, 'edge: bandwidth reading before reload failed'));
        // The request count of the old worker, so completeness does not lose the requests since the last flush.
        await traffic.flush().catch((error) => logger.warn({ err: String(error) }, 'edge: analytics flush before reload failed'));
        await writeConfig();
        await lists.rewrite(served);
        await supervisor.reload();
      });
    },
    status: () => ({ serving: servingCount(), problems: allProblems(), lastSyncAt }),
    health,
    /** Stops the loops; `keepHaproxy` leaves it serving (as an agent crash would). */
    async stop(options: { keepHaproxy?: boolean } = {}): Promise<void> {
      health.markStopping();
      loops.stop();
      if (flushTimer) clearTimeout(flushTimer);
      notifiedDone?.();
      // Bounded by the listener itself (1 s, then its socket is destroyed).
      const closing = listener?.close();
      // A change in progress finishes first (HAProxy and its files agree), then the counters since
      // the last reading are recorded — HAProxy's counters die with it. Bounded: if Postgres does
      // not answer in time, the bytes since the last reading (at most one bandwidth interval) go
      // unrecorded rather than HAProxy being left running (docs/edge.md, "Stopping").
      await rejectAfter((async () => {
        // Out of the activation count and the load balancers' pools before HAProxy goes.
        await repo.reportState(s.edgeId, 'stopping').catch((error) => logger.warn({ err: String(error) }, 'edge: could not report stopping'));
        await chain.catch(() => undefined);
        await meter.readOnce();
        if (traffic.port !== 0) await traffic.flush();
      })(), STOP_DATABASE_WORK_MS, () => new Error(`the database work before stopping did not finish within ${STOP_DATABASE_WORK_MS} ms`))
        .catch((error) => logger.warn({ err: String(error) }, 'edge: last bandwidth reading failed'));
      await closing;
      if (options.keepHaproxy) supervisor.detach();
      else await supervisor.stop(HAPROXY_SOFT_STOP_MS);
      // The lines of requests HAProxy finished while stopping, then the receiver closes.
      await rejectAfter(traffic.flush({ readHaproxy: false }), STOP_LAST_FLUSH_MS, () => new Error(`the last analytics flush did not finish within ${STOP_LAST_FLUSH_MS} ms`))
        .catch((error) => logger.warn({ err: String(error) }, 'edge: last analytics flush failed'));
      await traffic.close();
    },
  };
}
export type EdgeAgent = ReturnType<typeof createEdgeAgent>;
