// The edge agent: a small reconciler beside one HAProxy. Snapshot (Postgres) → desired state →
// diff against what HAProxy serves → apply through the runtime API → write the same to the files
// → report (deployments, heartbeat, problems). Every step is idempotent: a crash anywhere is
// repaired by the next pass. Changes arrive by LISTEN/NOTIFY, a poll catches what was missed
// (change-intake.ts), and a periodic full reconcile compares Postgres with what HAProxy serves
// (full-reconcile.ts). With Postgres gone, HAProxy keeps serving what it has. This file wires the
// parts together and runs the boot, the targeted pass, reloads and the stop.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Db } from '../../db/pool.ts';
import { edgeRepository, type EdgeRepository, type ServingRow } from '../../db/repositories/edge.ts';
import { listenForEdgeChanges, type EdgeListener } from '../../db/repositories/edge-listener.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { rejectAfter } from '../../process/deadline.ts';
import { coveringWildcard } from '../../model/wildcards.ts';
import { createAdminSocket } from './admin-socket.ts';
import { createTrafficAnalytics } from './analytics-flush.ts';
import { createBandwidthMeter } from './bandwidth-meter.ts';
import { createChangeApply } from './change-apply.ts';
import { createChangeIntake } from './change-intake.ts';
import { createChangesFirst } from './changes-first.ts';
import { createDeploymentRecord } from './deployment-record.ts';
import { createDeploymentReport, type DeploymentReport } from './deployment-report.ts';
import { destinationHosts, diff, servedFor, type ServedHost } from './desired-diff.ts';
import type { Reading } from './full-pass.ts';
import { createFullReconcile } from './full-reconcile.ts';
import { ensureDefaultCertificate, prepareStateDir, readLists, removeStaleCertificates, renderConfig, statePaths, writeAtomic, writeCertificate } from './haproxy-files.ts';
import { createHaproxyRuntime, type HaproxyRuntime } from './haproxy-runtime.ts';
import { allocatorPreload, createSupervisor } from './haproxy-supervisor.ts';
import { createHealthTracker } from './health.ts';
import { Intervals } from './intervals.ts';
import { createListFiles } from './list-files.ts';
import { createOriginAddresses, type Lookup } from './origin-addresses.ts';
import { ProblemBook } from './problem-book.ts';
import { ServedRecord } from './served-record.ts';
import { buildDesired, CertificateCache, type Desired } from './snapshot.ts';
import { loadRest } from './staged-boot.ts';
import type { AgentSettings } from './settings.ts';

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
  const paths = statePaths(s.stateDir);
  const admin = createAdminSocket(paths.masterSocket, s.socketTimeoutMs);
  const runtime = deps.overrides?.runtime ?? createHaproxyRuntime(admin, paths);
  const cache = new CertificateCache();
  const origins = createOriginAddresses({ admin, mapFile: paths.originMap, resolvers: s.resolvers, maxRefreshMs: s.originDnsRefreshMs, logger, lookup: deps.overrides?.originLookup });
  /** What HAProxy serves, as the agent last read or changed it, with its indexes. */
  const record = new ServedRecord();
  const lists = createListFiles(paths);
  const problems = new ProblemBook(logger);
  const loops = new Intervals(logger);
  let listener: EdgeListener | null = null;
  let chain: Promise<unknown> = Promise.resolve();
  /** A staged boot is loading the rest (staged-boot.ts): full reconciles wait for it. */
  let staging: Promise<void> | null = null;
  /** Targeted changes in flight: a full pass's slices wait for them (changes-first.ts). */
  const changesFirst = createChangesFirst();
  /** What happened meanwhile, for each full pass reading now (full-pass.ts, Reading). */
  const readings = new Set<Reading>();

  const supervisor = createSupervisor({
    binary: s.haproxyBin, preload: allocatorPreload(s.haproxyMalloc), paths, admin, logger, startTimeoutMs: s.startTimeoutMs,
    onRestarted: () => { void full.reconcile().catch((error) => logger.warn({ err: error }, 'reconcile after the haproxy restart failed; the next one retries')); },
  });
  // Several edges (docs/edge.md): what this one says about itself, with every heartbeat and on
  // its health endpoint (edge/agent/health.ts).
  const health = createHealthTracker({ maxLagMs: s.healthMaxLagMs, probeHaproxy: () => runtime.processKey() });
  const beat = async (report: { synced: boolean; starting?: boolean }) => {
    const h = report.starting ? health.current() : await health.check();
    await repo.heartbeat(s.edgeId, { servingHostnames: record.servingCount(), problems: problems.all(), ...report, health: { state: h.state, syncLagMs: h.lagMs, heartbeatIntervalMs: s.heartbeatIntervalMs } });
  };
  const meter = createBandwidthMeter({
    edgeId: s.edgeId, runtime, repository: repo, logger,
    // A name with no route of its own was served by the wildcard over it (docs/wildcards.md).
    domainOf: (h) => record.domainOfHost(h) ?? (coveringWildcard(h) ? record.domainOfHost(coveringWildcard(h)!) : null),
  });
  const traffic = createTrafficAnalytics({ db: deps.db, admin, edgeId: s.edgeId, port: s.trafficLogPort ?? 0, portFile: `${paths.dir}/traffic-log.port`, logger });

  /** Runs `fn` after every earlier change: HAProxy and its files see one change at a time. */
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  }

  const applyChanges = createChangeApply({ record, runtime, paths, lists, origins, logger, readings, onRefused: () => full.doubtView() });
  const deployments = createDeploymentRecord({
    report: deps.overrides?.reportDeployments ?? createDeploymentReport(deps.db, s.edgeId), repo, edgeId: s.edgeId, logger,
  });
  const full = createFullReconcile({
    repo, runtime, record, cache, secretBox: deps.secretBox, problems, deployments, health, paths, logger, readings, exclusive, applyChanges,
    pause: changesFirst.pause, staging: () => staging, beat,
  });

  /** Targeted pass for notified or polled domains. */
  function applyDomains(domainIds: string[]): Promise<number> {
    for (const reading of readings) for (const id of domainIds) reading.domains.add(id);
    return changesFirst.run(() => exclusive(async () => {
      const ids = new Set(domainIds);
      const desired = buildDesired(await repo.servingFor(domainIds), deps.secretBox, cache, domainIds);
      problems.note(desired, false);
      const changes = diff(desired.hosts, record.hosts, (h, route) => ids.has(record.domainOfServed(h, route)), record.index.hostsOf(ids));
      const { deployed, removed, failed } = await applyChanges(changes);
      if (failed > 0) health.noteFailure();
      if (changes.length > 0) logger.info({ domains: domainIds.length, changes: changes.length }, 'edge: applied domain changes');
      await deployments.afterChanges(deployed, removed);
      return changes.length;
    }));
  }
  const intake = createChangeIntake({ repo, changesFirst, health, logger, applyDomains });

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
          record.replace(next);
          await lists.rewrite(record.hosts);
          await removeStaleCertificates(paths, record.hosts);
          phase('files_written_ms');
        } else {
          record.replace(await readLists(paths));
          await lists.rewrite(record.hosts);
        }
        // HAProxy loads the origin map with the rest (it must exist, even empty).
        await origins.prepare(destinationHosts(record.hosts));
        phase('origins_resolved_ms');
        await writeConfig();
        mode = await supervisor.start();
        phase('haproxy_started_ms');
      } else {
        const changed = await writeConfig();
        mode = await supervisor.start();
        record.replace(await runtime.readServed());
        await origins.prepare(destinationHosts(record.hosts));
        if (changed) {
          // The template or settings changed since that HAProxy started: reload, after the
          // files match what it serves and its counters are recorded (a reload resets them).
          await lists.rewrite(record.hosts);
          await meter.readOnce().catch((error) => logger.warn({ err: String(error) }, 'edge: bandwidth reading before reload failed'));
          await traffic.flush().catch((error) => logger.warn({ err: String(error) }, 'edge: analytics flush before reload failed'));
          await supervisor.reload();
        }
      }
      await origins.adopt().catch((error) => logger.warn({ err: String(error) }, 'edge: reading the origin map failed; HAProxy resolves origins itself until the next refresh'));
      if (desired && staged) {
        const loading = loadRest({
          first: new Set(desired.domainIds), repo, secretBox: deps.secretBox, cache, problems, record, paths, lists, origins, meter, traffic,
          supervisor, runtime, logger, exclusive, onReloaded: (worker) => full.viewIsRecord(worker),
        });
        staging = loading.catch((error) => { logger.error({ err: String(error) }, 'edge: staged boot: loading the rest failed; the reconcile adds what is missing'); })
          .finally(() => { staging = null; });
        // Once the rest is served, the full pass catches up on what changed meanwhile.
        void staging.then(() => full.reconcile()).catch((error) => logger.warn({ err: String(error) }, 'edge: reconcile after the staged boot failed; retrying on schedule'));
      } else if (desired) {
        await full.reconcile().catch((error) => logger.warn({ err: String(error) }, 'edge: first reconcile failed; retrying on schedule'));
        phase('first_reconcile_ms');
      }
      logger.info({ mode, serving: record.servingCount(), staged, problems: problems.all().length, port: s.httpsPort, ...phases }, 'edge: serving');
      if (s.databaseUrl) {
        listener = listenForEdgeChanges(s.databaseUrl, {
          onDomain: (domainId) => intake.notified(domainId),
          onReconnected: () => { void intake.poll().catch(() => undefined); },
          onLost: (error) => logger.warn({ err: String(error) }, 'edge: change listener lost; polling until it is back'),
        });
      }
      void intake.poll().catch(() => undefined);
      loops.every(s.pollIntervalMs, 'poll for changes', () => intake.poll());
      loops.every(s.reconcileIntervalMs, 'reconcile', () => full.reconcile());
      loops.every(s.heartbeatIntervalMs, 'heartbeat', () => beat({ synced: false }));
      loops.every(s.bandwidthIntervalMs, 'bandwidth reading', () => meter.readOnce());
      if (traffic.port !== 0) loops.every(s.analyticsFlushMs, 'traffic analytics flush', () => traffic.flush());
      loops.every(ORIGIN_REFRESH_TICK_MS, 'origin address refresh', () => origins.refresh());
      await beat({ synced: false }).catch(() => undefined);
      return { mode, serving: record.servingCount() };
    },
    reconcile: () => full.reconcile(),
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
        await lists.rewrite(record.hosts);
        await supervisor.reload();
      });
    },
    status: () => ({ serving: record.servingCount(), problems: problems.all(), lastSyncAt: full.lastSyncAt() }),
    health,
    /** Stops the loops; `keepHaproxy` leaves it serving (as an agent crash would). */
    async stop(options: { keepHaproxy?: boolean } = {}): Promise<void> {
      health.markStopping();
      loops.stop();
      intake.stop();
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
