// `npm start`: the whole service on one machine with embedded defaults. Postgres (DATABASE_URL or
// embedded), Temporal (TEMPORAL_ADDRESS or the real dev server with its Web UI), migrations,
// search attributes, a bootstrap organization and key, the workflow bundle and the widget script,
// then the API, worker and edge processes. Every process started here is supervised
// (local-stack/supervisor.ts): one that exits is restarted with backoff while the others keep
// serving. Ctrl-C (SIGINT) or SIGTERM to this launcher stops every child (each once, with SIGTERM,
// the Node children in their own process group: a terminal's Ctrl-C reaches only this launcher,
// and a second signal would make a child skip its graceful close); a second start reuses the data
// under HOSTGATE_DATA_DIR.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../config/index.ts';
import { migrate } from '../db/migrate.ts';
import { createDb } from '../db/pool.ts';
import { apiKeysRepository, scopes } from '../db/repositories/api-keys.ts';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { bundleIsFresh, buildWorkflowBundle, defaultBundlePath } from '../worker/workflow-bundle.ts';
import { ensureWidgetBuilt } from '../widget/build.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.ts';
import { localEncryptionKeys } from './encryption-keys.ts';
import { inOwnProcessGroup } from './own-process-group.ts';
import { LOCAL_CHALLENGE_ZONE, powerDnsInstalled, startLocalPowerDns, type LocalPowerDns } from './powerdns.ts';
import { Supervisor } from './supervisor.ts';
import { parseTopologyArgs, planTopology, TopologyUsageError } from './topology.ts';
import { findTemporalCli, startTemporalDevServer, type DevServerHandle, type DevServerOptions } from './temporal-dev-server.ts';
import path from 'node:path';

const t0 = Date.now();
const say = (msg: string) => console.log(`hostgate: ${msg}`);
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
// Ctrl-C must reach this launcher only, never Postgres directly: it stops last (own-process-group.ts).
await inOwnProcessGroup(import.meta.url, () => void shutdown(1));

let config;
let counts;
try {
  // `npm start -- --api N --worker N --edge N` (local-stack/topology.ts); a bad count exits 64.
  counts = parseTopologyArgs(process.argv.slice(2));
  config = loadConfig();
} catch (error) {
  if (error instanceof TopologyUsageError) { console.error(`hostgate: ${error.message}`); process.exit(error.exitCode); }
  if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
  throw error;
}
const local = config.localStack;

let postgres: EmbeddedPostgresHandle | null = null;
let temporal: DevServerHandle | null = null;
const supervisor = new Supervisor(say);
let shuttingDown = false;

/**
 * The Node processes of the stack, in start order. The HTTPS edge agent needs HAProxy: without
 * the binary it is not started (a restart loop would only repeat the same exit), and the launcher
 * says how to install it; domains then wait in pending_certificate with edge_not_deployed.
 */
const haproxyMissing = !existsSync(config.edge.haproxyBin);
const nodeServices = planTopology(counts, config, { withEdgeAgent: !haproxyMissing });

async function shutdown(code: number): Promise<never> {
  if (shuttingDown) return new Promise<never>(() => undefined);
  shuttingDown = true;
  say('stopping…');
  supervisor.holdRestarts();
  // Every wait below is bounded: the children get SIGKILL 20 s after SIGTERM, the servers 10 s.
  await supervisor.stop(nodeServices.map((s) => s.name));
  const bounded = (p: Promise<unknown>) => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 10_000).unref())]);
  await bounded(supervisor.stop(['temporal', 'powerdns']));
  await bounded(supervisor.stop(['postgres']));
  say('stopped');
  process.exit(code);
}
// embedded-postgres installs exit hooks that stop Postgres and exit on SIGINT/SIGTERM before the
// api, worker and Temporal are stopped; this launcher owns the order of shutdown instead.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const) process.removeAllListeners(signal);
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGHUP', () => void shutdown(0));

try {
  let databaseUrl = config.db.url;
  if (databaseUrl) say('[1/6] Postgres: using DATABASE_URL');
  else {
    say(`[1/6] Postgres: starting embedded Postgres on 127.0.0.1:${local.postgresPort} (data in ${path.join(config.dataDir, 'postgres')})`);
    let started: EmbeddedPostgresHandle | null = null;
    await supervisor.add({
      name: 'postgres',
      // First start: initialise if needed, create the database. A restart starts the cluster
      // again on the same data (Postgres itself refuses while the dead one's backends linger:
      // the supervisor then tries again after its backoff).
      async start() {
        if (!started) started = await startEmbeddedPostgres(config.dataDir, local.postgresPort, say);
        else await started.restart();
        const child = started.process();
        if (!child) throw new Error('embedded Postgres started without a process');
        return child;
      },
      stop: () => started!.stop(),
    });
    postgres = started!;
    databaseUrl = postgres.url;
  }

  let temporalAddress = config.temporal.address;
  let temporalUi: string | null = null;
  if (temporalAddress) say(`[2/6] Temporal: using ${temporalAddress}`);
  else {
    const cli = findTemporalCli(config.temporal.cliPath, say);
    say(`[2/6] Temporal: starting the dev server on 127.0.0.1:${local.temporalPort} (UI :${local.temporalUiPort}, data in ${path.join(config.dataDir, 'temporal')})`);
    const options: DevServerOptions = {
      cliPath: cli, port: local.temporalPort, uiPort: local.temporalUiPort,
      dbFile: path.resolve(config.dataDir, 'temporal', 'temporal.db'), namespace: config.temporal.namespace, log: say,
    };
    await supervisor.add({
      name: 'temporal',
      // A restart begins once the dead server's process has exited, so its SQLite lock is gone;
      // if another server still holds the file, the start fails with SQLITE_BUSY and the
      // supervisor waits its backoff before trying again.
      async start() {
        temporal = await startTemporalDevServer(options);
        return temporal.process;
      },
      stop: () => temporal!.stop(),
    });
    temporalAddress = temporal!.address;
    temporalUi = temporal!.uiUrl;
  }

  say('[3/6] migrations');
  const migrated = await migrate(databaseUrl, (m) => say(`  ${m}`));
  say(`  schema at version ${migrated.version}`);

  say('[4/6] Temporal namespace: search attributes');
  const conn = await connectTemporal(temporalAddress);
  const added = await ensureSearchAttributes(conn, config.temporal.namespace);
  if (added.length) say(`  registered ${added.join(', ')}`);
  await conn.close();

  const db = await createDb(databaseUrl, { maximumPoolSize: 2 });
  const orgs = organizationsRepository(db);
  let bootstrap: { org: string; key: string } | null = null;
  if ((await orgs.list()).length === 0) {
    const org = await orgs.create({ name: 'Default organization', allowedReturnOrigins: [config.publicUrl] });
    const { secret } = await apiKeysRepository(db).create({ organizationId: org.id, scopes, name: 'bootstrap' });
    bootstrap = { org: org.id, key: secret };
  }
  // Zero-downtime moves on by default locally: our own PowerDNS answers a local challenge zone from
  // this Postgres, so a newcomer sees the ownership TXT and _acme-challenge CNAME records at once.
  // A challenge zone configured by hand means a PowerDNS of one's own: left alone.
  let moves: { zone: string; server: string } | { missing: string } | null = null;
  if (!config.moves.challengeZone) {
    const installed = powerDnsInstalled();
    if (installed.ok) {
      const zone = LOCAL_CHALLENGE_ZONE;
      await challengeZoneRepository(db).ensureZone(zone);
      let pdns: LocalPowerDns | null = null;
      await supervisor.add({
        name: 'powerdns',
        async start() {
          pdns = await startLocalPowerDns({ databaseUrl, dataDir: config.dataDir, port: local.pdnsPort, zone });
          return pdns.process;
        },
        stop: () => pdns!.stop(),
      });
      moves = { zone, server: `127.0.0.1:${local.pdnsPort}` };
    } else moves = { missing: installed.install };
  }
  await db.end();

  const bundlePath = config.worker.bundlePath ?? defaultBundlePath;
  if (!bundleIsFresh(bundlePath)) {
    say('[5/6] building the workflow bundle (sources changed)');
    await buildWorkflowBundle(bundlePath);
  } else say('[5/6] workflow bundle is up to date');
  // The API serves the widget script as built; it is rebuilt only when its sources changed.
  const widget = await ensureWidgetBuilt({ apiOrigin: config.widgetApiOrigin });
  say(widget ? `  widget script ${widget.versioned_file} (${widget.gzip_bytes} B gzipped)` : '  widget script not built (esbuild missing: npm ci installs it)');

  // Launcher plumbing, not configuration reading: the children get this process's environment
  // plus what was started here, and validate it themselves (config/env.ts).
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    // Keys given in the environment reach the children as they are (…process.env above).
    ...(config.encryptionKeys.length ? {} : { HOSTGATE_ENCRYPTION_KEYS: localEncryptionKeys(config.dataDir) }),
    // Prometheus endpoints on loopback (HOSTGATE_METRICS_HOST), each on by default here; a
    // variable set (0: off) wins. docs/operations.md, "Metrics".
    HOSTGATE_API_METRICS_PORT: String(local.metricsPorts.api),
    HOSTGATE_WORKER_METRICS_PORT: String(local.metricsPorts.worker),
    HOSTGATE_WORKER_SDK_METRICS_PORT: String(local.metricsPorts.workerSdk),
    HOSTGATE_EDGE_METRICS_PORT: String(local.metricsPorts.edge),
    ...(moves && 'zone' in moves ? { HOSTGATE_CHALLENGE_ZONE: moves.zone, HOSTGATE_CHALLENGE_DNS_SERVER: moves.server } : {}),
  };
  say(`[6/6] starting ${nodeServices.map((s) => s.name).join(', ')}`);
  for (const { name, entry, env: own } of nodeServices) {
    const file = fileURLToPath(new URL(entry, import.meta.url));
    await supervisor.add({
      name,
      // A spawn that fails (no such file, EMFILE…) shows as an exit, which the supervisor handles.
      start: async () => spawn(process.execPath, [file], { env: { ...env, ...own }, stdio: ['ignore', 'inherit', 'inherit'], detached: true }),
    });
  }

  const apiUrl = `http://localhost:${config.api.port}`;
  const deadline = Date.now() + 60_000;
  for (let i = 0; i < counts.api; i++) {
    const url = `http://localhost:${config.api.port + i}`;
    for (;;) {
      const ok = await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`the API did not become ready on ${url}/readyz within 60 s; see the log lines above`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  console.log('');
  say(`ready in ${elapsed()}`);
  say(`  API:          ${apiUrl}/v1`);
  say(`  API docs:     ${apiUrl}/docs  (OpenAPI: ${apiUrl}/v1/openapi.json)`);
  if (temporalUi) say(`  Temporal UI:  ${temporalUi}`);
  say(`  Readiness:    ${apiUrl}/readyz  (?strict=1: 503 while Temporal is away too)`);
  const { metricsPorts } = local;
  const metricsUrls = ([['api', metricsPorts.api], ['worker', metricsPorts.worker], ['worker SDK', metricsPorts.workerSdk], ['edge', metricsPorts.edge]] as const)
    .filter(([, port]) => port !== 0).map(([name, port]) => `${name} :${port}`);
  if (metricsUrls.length) say(`  Metrics:      http://${config.metrics.host}:<port>/metrics — ${metricsUrls.join(', ')}`);
  say(`  Widget demo:  ${apiUrl}/widget/demo`);
  say(`  ACME HTTP-01: http://localhost:${config.edge.httpPort}/.well-known/acme-challenge/…  (port 80 in production)`);
  if (nodeServices.length > 4) for (const p of nodeServices) say(`  ${p.name.padEnd(14)}${p.where}`);
  if (haproxyMissing) {
    say(`  HTTPS edge:   NOT RUNNING — HAProxy is not installed at ${config.edge.haproxyBin}: \`sudo apt-get install haproxy\` (Debian 12: 2.6), then restart`);
  } else {
    say(`  HTTPS edge:   https://<active hostname>:${config.edge.httpsPort}/ on ${config.edge.bindAddress} (HAProxy; \`npm run cli -- edge status\`)`);
  }
  if (moves && 'zone' in moves) say(`  Moves:        challenge zone ${moves.zone} answered by PowerDNS on ${moves.server} (docs/zero-downtime-moves.md)`);
  else if (moves) say(`  Moves:        OFF — PowerDNS is not installed: \`${moves.missing}\`, then restart`);
  else say(`  Moves:        challenge zone ${config.moves.challengeZone} (your PowerDNS at ${config.moves.challengeDnsServer})`);
  if (bootstrap) {
    say(`  Organization: ${bootstrap.org}`);
    say(`  API key:      ${bootstrap.key}`);
    say('  (shown once; create more with `npm run cli -- keys create --org <id> --scopes …`)');
    say(`  Try:          curl -H "Authorization: Bearer ${bootstrap.key}" ${apiUrl}/v1/domains`);
  }
  say('Press Ctrl-C to stop.');
} catch (error) {
  console.error(`hostgate: start failed: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
}
