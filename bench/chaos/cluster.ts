// `npm run chaos -- --cluster [--duration 150]`: several of everything (issue 27) under a steady
// load of creates, verifies and HTTPS requests through both edges, while it
//   1. kill -9s one API: the other keeps answering, no create is lost (every Idempotency-Key ends
//      with exactly one domain — a client that gets no answer retries the same key on the other);
//   2. kill -9s one worker while certificates are being issued: the other finishes every domain,
//      with one certificate each;
//   3. kill -9s one edge's agent and HAProxy: the other edge serves every active hostname with zero
//      failed requests, new domains still go active, and the returning edge serves every active
//      hostname before its health endpoint first says 200;
// and at the end checks that the bandwidth recorded over both edges equals the HTTP bytes sent
// through them (docs/edge.md, "Bandwidth": the measure; traffic to the edge is stopped a few
// bandwidth intervals before its kill, as bytes after a dead worker's last reading are lost by
// design). The last line is one JSON object: ok, the counts, the recovery time of each kill.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from '../../db/pool.ts';
import { EDGE } from '../../test/support/acme-stack.ts';
import { rawRequest } from '../../test/support/edge-bytes.ts';
import { intArg, isInterrupted, progress, runBenchmark, sleep, type Headline } from '../support/run.ts';
import { EDGE_BANDWIDTH_MS, EDGE_HEARTBEAT_MS, startClusterStack, type ClusterStack } from './cluster-stack.ts';

const { values: args } = parseArgs({ options: { cluster: { type: 'boolean' }, duration: { type: 'string', default: '150' }, creators: { type: 'string', default: '2' } }, strict: false });
const DURATION_S = intArg('duration', String(args.duration), 90, 900);
const CREATORS = intArg('creators', String(args.creators), 1, 8);
/** Between two creates of one client: a steady trickle the 2-core machine can issue for. */
const CREATE_PAUSE_MS = 1500;
const SETTLE_MS = 150_000;

interface Key { key: string; hostname: string; id: string | null; verified: boolean }
const keys: Key[] = [];
const api = { requests: 0, answered: 0, failed_over: 0, network_at_killed: 0, network_at_live: 0, status_5xx: 0, status_4xx: 0 };
const edgeStats = [0, 1].map(() => ({ requests: 0, failed: 0, failed_samples: [] as string[], sent: 0, received: 0 }));
const apiDown = [false, false];
const edgeOn = [true, true];
let active: string[] = [];

async function main(): Promise<Headline> {
  const runId = randomBytes(4).toString('hex');
  const s = await startClusterStack(runId);
  const loadEnd = Date.now() + DURATION_S * 1000;
  let rr = 0;

  /** One API call; no answer or a 503 goes to the other API with the same key (a load balancer's retry). */
  async function call(method: string, url: string, body: unknown, key: string): Promise<{ status: number; json: any } | null> {
    const first = rr++ % 2;
    for (let attempt = 0; attempt < 40; attempt++) {
      const i = (first + attempt) % 2;
      api.requests++;
      try {
        const res = await fetch(s.apis[i]!.base + url, {
          method, signal: AbortSignal.timeout(15_000),
          headers: { authorization: s.auth, 'idempotency-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : null,
        });
        const json = await res.json().catch(() => null);
        if (res.status === 503 || (res.status === 409 && json?.error?.code === 'idempotency_key_in_use')) { await sleep(300); continue; }
        api.answered++;
        if (attempt > 0) api.failed_over++;
        if (res.status >= 500) api.status_5xx++;
        else if (res.status >= 400) api.status_4xx++;
        return { status: res.status, json };
      } catch {
        if (apiDown[i]) api.network_at_killed++; else api.network_at_live++;
        await sleep(100);
      }
    }
    return null;
  }

  async function creator(n: number) {
    for (let i = 0; Date.now() < loadEnd && !isInterrupted(); i++) {
      const k: Key = { key: `cluster-${n}-${i}`, hostname: `c${n}-${i}.chaos-cluster.test`, id: null, verified: false };
      keys.push(k);
      s.acme.dns.set(k.hostname, [{ type: 'CNAME', value: EDGE }]);
      const created = await call('POST', '/v1/domains', { hostname: k.hostname, destination_id: s.destinationId }, k.key);
      if (created?.status === 201) k.id = created.json.data.id;
      if (k.id) {
        const v = await call('POST', `/v1/domains/${k.id}/verify`, undefined, `verify-${k.key}`);
        k.verified = v !== null && v.status < 300;
      }
      await sleep(CREATE_PAUSE_MS);
    }
  }

  async function browse(n: number) {
    for (let i = 0; !stopBrowsing && !isInterrupted(); i++) {
      const host = active[(i * 7 + n) % Math.max(1, active.length)];
      if (!host) { await sleep(200); continue; }
      for (const e of [0, 1]) {
        if (!edgeOn[e]) continue;
        const st = edgeStats[e]!;
        st.requests++;
        try {
          const r = await rawRequest(s.edges[e]!.process.port, host, `/chaos/${n}/${i}`, 10_000);
          st.sent += r.sent; st.received += r.received;
          if (r.status !== 200) { st.failed++; if (st.failed_samples.length < 5) st.failed_samples.push(`${host} → ${r.status}`); }
        } catch (error) {
          st.failed++;
          if (st.failed_samples.length < 5) st.failed_samples.push(`${host} → ${String(error)}`);
        }
      }
      await sleep(30);
    }
  }
  let stopBrowsing = false;
  const activeNow = async () => await s.db.anyFirst(sql.unsafe`select hostname from domains where organization_id = ${s.orgId} and status = 'active'`) as string[];
  const refresher = setInterval(() => { void activeNow().then((a) => { active = a; }, () => undefined); }, 300);

  // Each kill's recovery: api — kill → the killed API answers /readyz again (5 s of it down on
  // purpose); worker — kill → every domain pending at the kill is active (the other worker's
  // work); edge — kill → the returning edge's first 200 (15 s down on purpose), and restart → 200.
  const recovery: Record<string, number | null> = { recovery_api_ms: null, recovery_worker_ms: null, recovery_edge_ms: null, edge_restart_to_healthy_ms: null };
  const edgeFault = { activated_while_down: 0, swept_on_survivor: 0, survivor_missing: 0, returning_missing_at_first_200: 0, checked_at_first_200: 0, first_health_503s: 0 };
  let workerFault = { pending_at_kill: 0 };

  async function faults() {
    await sleep(20_000);
    // 1. One API, kill -9; it comes back after 5 s (a supervisor's restart).
    progress('fault: kill -9 api-1');
    apiDown[0] = true;
    let t0 = Date.now();
    s.apis[0]!.proc.kill('SIGKILL');
    await sleep(5000);
    s.apis[0]!.proc.start();
    for (;;) { if (await fetch(`${s.apis[0]!.base}/readyz`).then((r) => r.ok, () => false)) break; await sleep(100); }
    apiDown[0] = false;
    recovery.recovery_api_ms = Date.now() - t0;
    await sleep(8000);

    // 2. One worker, kill -9 while issuance is under way; it stays down until the other finished.
    progress('fault: kill -9 worker-1 mid-issuance');
    const pendingNow = async () => await s.db.anyFirst(sql.unsafe`select id from domains where organization_id = ${s.orgId} and status = 'pending_certificate'`) as string[];
    for (let i = 0; i < 200 && (await pendingNow()).length === 0; i++) await sleep(100);
    const pending = await pendingNow();
    workerFault = { pending_at_kill: pending.length };
    t0 = Date.now();
    s.workers[0]!.kill('SIGKILL');
    for (;;) {
      const left = Number(await s.db.oneFirst(sql.unsafe`select count(*) from domains where id = any(${sql.array(pending, 'text')}) and status <> 'active'`));
      if (left === 0 || Date.now() - t0 > 120_000) break;
      await sleep(200);
    }
    recovery.recovery_worker_ms = Date.now() - t0;
    await sleep(3000);
    s.workers[0]!.start();
    await sleep(5000);

    // 3. One edge, kill -9 of agent and HAProxy. Its traffic stops first (see the header).
    progress('fault: kill -9 edge-1 (agent and HAProxy)');
    edgeOn[0] = false;
    await sleep(4 * EDGE_BANDWIDTH_MS + 500);
    const edge = s.edges[0]!;
    await edge.killHard();
    t0 = Date.now();
    const activeAtKill = new Set(await activeNow());
    // Every active hostname through the surviving edge, once (the browsers pick at random).
    for (const h of activeAtKill) {
      const st = edgeStats[1]!;
      st.requests++;
      edgeFault.swept_on_survivor++;
      const r = await rawRequest(s.edges[1]!.process.port, h, '/sweep').catch(() => null);
      if (r) { st.sent += r.sent; st.received += r.received; }
      if (r?.status !== 200) { st.failed++; edgeFault.survivor_missing++; }
    }
    await sleep(Math.max(15_000, 6 * EDGE_HEARTBEAT_MS));
    edgeFault.activated_while_down = (await activeNow()).filter((h) => !activeAtKill.has(h)).length;
    // Returning: its health is polled from the first moment; at the first 200, every hostname
    // active by then must be served through it.
    let firstOk: number | null = null;
    const polling = (async () => {
      while (firstOk === null && Date.now() - t0 < 180_000) {
        const st = await edge.health();
        if (st === 200) { firstOk = Date.now(); break; }
        if (st === 503) edgeFault.first_health_503s++;
        await sleep(20);
      }
    })();
    const restartAt = Date.now();
    const starting = edge.process.start();
    await polling;
    if (firstOk !== null) {
      recovery.recovery_edge_ms = firstOk - t0;
      recovery.edge_restart_to_healthy_ms = firstOk - restartAt;
      const hosts = await activeNow();
      edgeFault.checked_at_first_200 = hosts.length;
      for (const h of hosts) {
        const r = await rawRequest(edge.process.port, h, '/returning').catch(() => null);
        edgeStats[0]!.requests++;
        // Its bytes are counted like the load's (the bandwidth check adds everything up).
        if (r) { edgeStats[0]!.sent += r.sent; edgeStats[0]!.received += r.received; }
        if (r?.status !== 200) edgeFault.returning_missing_at_first_200++;
      }
    }
    await starting;
    edgeOn[0] = true;
  }

  progress(`load: ${CREATORS} creators (a domain each every ~${CREATE_PAUSE_MS} ms) and 2 HTTPS clients on both edges for ${DURATION_S} s`);
  const ticker = setInterval(() => progress(`${keys.length} keys, ${active.length} active, api ${JSON.stringify(api)}, edges ${edgeStats.map((e) => `${e.requests}/${e.failed}`).join(' ')}`), 10_000);
  const browsing = [0, 1].map((n) => browse(n));
  await Promise.all([faults(), ...Array.from({ length: CREATORS }, (_, n) => creator(n))]);
  progress('load over; waiting for every domain to be active');
  const settleEnd = Date.now() + SETTLE_MS;
  let notActive = -1;
  while (Date.now() < settleEnd && !isInterrupted()) {
    notActive = Number(await s.db.oneFirst(sql.unsafe`select count(*) from domains where organization_id = ${s.orgId} and status <> 'active'`));
    if (notActive === 0) break;
    await sleep(1000);
  }
  stopBrowsing = true;
  await Promise.all(browsing);
  clearInterval(ticker);
  clearInterval(refresher);

  const checked = await checks(s, notActive);
  const result = { ...checked, ...recovery, ...edgeFault, ...workerFault };
  const ok = checked.ok === true && edgeFault.returning_missing_at_first_200 === 0 && edgeFault.survivor_missing === 0 && edgeFault.activated_while_down > 0
    && workerFault.pending_at_kill > 0 && Object.values(recovery).every((v) => v !== null);
  // A failed check is a failed run (exit 1), not only a field in the JSON line.
  if (!ok) process.exitCode = 1;
  return { ...result, ok };
}

async function checks(s: ClusterStack, notActive: number): Promise<Headline> {
  // Keys: every one must end with exactly one domain; replaying it answers the same.
  let lost = 0;
  for (const k of keys) {
    if (k.id) continue;
    const res = await fetch(`${s.apis[1]!.base}/v1/domains`, { method: 'POST', headers: { authorization: s.auth, 'idempotency-key': k.key, 'content-type': 'application/json' }, body: JSON.stringify({ hostname: k.hostname, destination_id: s.destinationId }) }).catch(() => null);
    if (res?.status === 201) k.id = ((await res.json()) as any).data.id; else lost++;
  }
  const perHost = await s.db.any(sql.unsafe`select hostname, count(*)::int as n from domains where organization_id = ${s.orgId} group by hostname`) as readonly { hostname: string; n: number }[];
  const duplicated = perHost.filter((r) => r.n > 1).length;
  const announced = new Set(keys.map((k) => k.hostname));
  const orphans = perHost.filter((r) => !announced.has(r.hostname)).length;
  const ids = await s.db.anyFirst(sql.unsafe`select id from domains where organization_id = ${s.orgId}`) as string[];
  const certs = await s.db.any(sql.unsafe`select d.id, count(c.id)::int as n from domains d left join certificates c on c.domain_id = d.id where d.organization_id = ${s.orgId} group by d.id`) as readonly { id: string; n: number }[];
  const extraCertificates = certs.filter((c) => c.n > 1).length;
  const withoutCertificate = certs.filter((c) => c.n === 0).length;

  const runs = new Map<string, number>();
  const deadline = Date.now() + 60_000;
  let missingWorkflows = ids.length;
  while (Date.now() < deadline) {
    runs.clear();
    for await (const w of s.client.workflow.list({ query: `TaskQueue = "${s.taskQueue}"` })) {
      if (w.workflowId.startsWith('domain/') && w.status.name !== 'CONTINUED_AS_NEW') runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
    }
    missingWorkflows = ids.filter((id) => !runs.has(`domain/${id}`)).length;
    if (missingWorkflows === 0) break;
    await sleep(2000);
  }
  const duplicateWorkflows = ids.filter((id) => (runs.get(`domain/${id}`) ?? 0) > 1).length;

  // Bandwidth: nothing in flight now; wait until the readings stop moving, then compare.
  const recorded = async () => await s.db.one(sql.unsafe`select coalesce(sum(b.bytes_in), 0)::int8 as bytes_in, coalesce(sum(b.bytes_out), 0)::int8 as bytes_out
    from domain_bandwidth_hourly b join domains d on d.id = b.domain_id where d.organization_id = ${s.orgId}`) as { bytes_in: number; bytes_out: number };
  let bw = await recorded();
  for (let i = 0; i < 30; i++) {
    await sleep(4 * EDGE_BANDWIDTH_MS);
    const next = await recorded();
    if (next.bytes_in === bw.bytes_in && next.bytes_out === bw.bytes_out) break;
    bw = next;
  }
  const sent = edgeStats[0]!.sent + edgeStats[1]!.sent;
  const received = edgeStats[0]!.received + edgeStats[1]!.received;
  const edgeFailed = edgeStats[0]!.failed + edgeStats[1]!.failed;
  for (const e of edgeStats) for (const x of e.failed_samples) progress(`  edge failure: ${x}`);

  const result = {
    duration_s: DURATION_S,
    keys: keys.length,
    domains: ids.length,
    api_requests: api.requests,
    api_answered: api.answered,
    api_failed_over: api.failed_over,
    failed_network_at_killed_api: api.network_at_killed,
    failed_network_at_live_api: api.network_at_live,
    failed_5xx: api.status_5xx,
    failed_4xx: api.status_4xx,
    lost,
    duplicated: duplicated + orphans,
    workflows_missing: missingWorkflows,
    workflows_duplicated: duplicateWorkflows,
    not_active: notActive,
    extra_certificates: extraCertificates,
    without_certificate: withoutCertificate,
    edge_requests: edgeStats[0]!.requests + edgeStats[1]!.requests,
    edge_requests_edge1: edgeStats[0]!.requests,
    edge_requests_edge2: edgeStats[1]!.requests,
    edge_requests_failed: edgeFailed,
    bytes_sent: sent, bytes_received: received,
    bandwidth_in: bw.bytes_in, bandwidth_out: bw.bytes_out,
    bandwidth_matches: bw.bytes_in === sent && bw.bytes_out === received,
  };
  const ok = lost === 0 && duplicated + orphans === 0 && missingWorkflows === 0 && duplicateWorkflows === 0 && notActive === 0
    && extraCertificates === 0 && withoutCertificate === 0 && edgeFailed === 0 && result.bandwidth_matches
    && api.network_at_live === 0 && api.status_5xx === 0 && api.status_4xx === 0 && ids.length > 0;
  return { ok, ...result };
}

await runBenchmark(main, 'chaos cluster');
