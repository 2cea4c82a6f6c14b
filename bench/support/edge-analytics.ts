// bench:edge's traffic-analytics figures (issue 24, docs/analytics.md): the edge with the request
// log on vs off in the same run (alternating rounds, two edges side by side), the agent's own CPU
// per 10,000 requests, completeness (lines ÷ stick-table requests) at the highest rate the bench
// reached, and the read behind GET /v1/domains/{id}/analytics over 24 h of minutes.
import { readdirSync, readFileSync } from 'node:fs';
import { newId } from '../../db/ids.ts';
import { sql, type Db } from '../../db/pool.ts';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { trafficRepository } from '../../db/repositories/traffic.ts';
import { presentDomainAnalytics, resolveRange } from '../../api/routes/analytics.ts';
import { addToHistogram, TrafficAggregator, type TrafficLine } from '../../model/analytics-counters.ts';
import { CLK_TCK, processTree } from './proc-sampler.ts';
import { onCleanup, sleep } from './run.ts';

/** The agent process serving `stateDir` (its environment names it), or null. */
export function agentPid(stateDir: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('agent-main.ts')) continue;
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOSTGATE_EDGE_STATE_DIR=${stateDir}`)) return Number(entry);
    } catch { /* gone or not ours */ }
  }
  return null;
}

/** CPU seconds of one process alone (not its children: HAProxy is the agent's child). */
export function ownCpuSeconds(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

/**
 * 24 h of minute rows for one domain (one edge, a realistic spread of origin times: ~30 histogram
 * buckets a minute), then `samples` reads of the whole range as the route reads it (the domain by
 * organization, `report`, `presentDomainAnalytics`, JSON). In process: the API's authentication and HTTP framing are not part of the figure.
 */
export async function analyticsReadLatency(db: Db, organizationId: string, destinationId: string, samples: number): Promise<{ p50_ms: number; p99_ms: number; buckets: number; bytes: number }> {
  const domainId = newId('domain');
  await db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex, status) values (${domainId}, ${organizationId}, ${destinationId}, ${`analytics-${domainId}.bench.test`}, false, 'active')`);
  await db.query(sql.unsafe`insert into edge_nodes (id) values ('bench-analytics') on conflict do nothing`);
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const line = (ms: number, status: number): TrafficLine => ({ status, bytesIn: 400, bytesOut: 1500, originMs: ms, totalMs: ms + 2, httpVersion: 'HTTP/2.0', tlsVersion: 'TLSv1.3', termination: '--', counted: true, domainId, host: 'x' });
  // Flushed in batches of an hour's minutes, as an agent would have over the day.
  for (let hour = 0; hour < 24; hour++) {
    const a = new TrafficAggregator();
    for (let m = 0; m < 60; m++) {
      const minute = now - (24 * 60 - (hour * 60 + m)) * 60_000;
      for (let i = 0; i < 60; i++) a.add(line(Math.round(5 + 400 * Math.random() ** 3), i % 17 === 0 ? 500 : 200), minute);
    }
    await trafficRepository(db).flush('bench-analytics', a.take(), null);
  }
  const read = async () => {
    const range = resolveRange({ interval: 'minute', from: new Date(now - 24 * 3_600_000).toISOString(), to: new Date(now).toISOString() }, Date.now());
    const domain = await domainsRepository(db).get(organizationId, domainId);
    return JSON.stringify({ data: presentDomainAnalytics(domain!, range, await trafficRepository(db).report(domain!.id, range.interval, range.from, range.to)) });
  };
  let body = await read(); // warm: prepared statement, JIT
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    body = await read();
    times.push(performance.now() - t0);
  }
  const buckets = (JSON.parse(body) as { data: { buckets: unknown[] } }).data.buckets.length;
  return { p50_ms: Math.round(pct(times, 50) * 10) / 10, p99_ms: Math.round(pct(times, 99) * 10) / 10, buckets, bytes: body.length };
}

/** Worst relative error of a percentile read back from the histogram, over log-uniform values. */
export function histogramError(): number {
  let worst = 0;
  for (let i = 0; i < 20_000; i++) {
    const ms = Math.exp(Math.random() * Math.log(60_000));
    const h: Record<string, number> = {};
    addToHistogram(h, ms);
    const k = Number(Object.keys(h)[0]);
    const lo = 1.05 ** (k - 1);
    const v = k === 0 ? 0 : Math.sqrt(lo * 1.05 ** k);
    worst = Math.max(worst, Math.abs(v - ms) / ms);
  }
  return Math.round(worst * 10_000) / 100;
}

export interface OnOffEdge { port: number; stateDir: string }

/** CPU seconds of the HAProxy processes (master and worker) under an agent: its descendants named haproxy. */
export function haproxyCpuSeconds(agent: number): number {
  let total = 0;
  for (const pid of processTree(agent)) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'haproxy') total += ownCpuSeconds(pid);
    } catch { /* exited meanwhile */ }
  }
  return total;
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The edge with the request log on and an edge with it off (HOSTGATE_EDGE_TRAFFIC_LOG=off), side
 * by side on the same cores, the same load against each in `pairs` short back-to-back pairs (the
 * order alternates). On a shared 2-core VM another process's burst lands in one run of a pair and
 * not the other: many short pairs and the median of their ratios keep one burst from deciding the
 * figure (a median of 3 long rounds moved 0.87–0.99 between quiet runs). Beside req/s, each
 * HAProxy's own CPU per request (/proc/<pid>/stat, master and worker): it does not depend on how
 * much of the cores the load generator got, so it says what the log costs HAProxy itself.
 */
export async function loggingOnOff(options: {
  on: OnOffEdge; off: OnOffEdge; pairs: number; seconds: number;
  run: (port: number, seconds: number) => Promise<{ rps: number; total: number }>;
  log: (line: string) => void;
}) {
  const pids = { on: agentPid(options.on.stateDir), off: agentPid(options.off.stateDir) };
  const cpu = { on: 0, off: 0 };
  const hcpu = { on: 0, off: 0 };
  const requests = { on: 0, off: 0 };
  const rps = { on: [] as number[], off: [] as number[] };
  const hus = { on: [] as number[], off: [] as number[] };
  await options.run(options.on.port, options.seconds); // warm-up of both
  await options.run(options.off.port, options.seconds);
  for (let i = 0; i < options.pairs; i++) {
    for (const which of (i % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as ('on' | 'off')[]) {
      const pid = pids[which];
      const [c0, h0] = pid ? [ownCpuSeconds(pid), haproxyCpuSeconds(pid)] : [0, 0];
      const r = await options.run(options[which].port, options.seconds);
      const [c1, h1] = pid ? [ownCpuSeconds(pid), haproxyCpuSeconds(pid)] : [0, 0];
      cpu[which] += c1 - c0;
      hcpu[which] += h1 - h0;
      requests[which] += r.total;
      rps[which].push(r.rps);
      hus[which].push(pid && r.total > 0 ? ((h1 - h0) / r.total) * 1e6 : NaN);
    }
    options.log(`  analytics pair ${i + 1}: logging on ${Math.round(rps.on[i]!)} req/s (HAProxy ${hus.on[i]!.toFixed(1)} µs/request), off ${Math.round(rps.off[i]!)} req/s (${hus.off[i]!.toFixed(1)} µs) → ${r3(rps.on[i]! / rps.off[i]!)}`);
  }
  const ratios = rps.on.map((v, k) => v / rps.off[k]!);
  const per10k = (which: 'on' | 'off') => (pids[which] && requests[which] > 0 ? Math.round((cpu[which] / requests[which]) * 10_000 * 1000) : null);
  const usPerRequest = (which: 'on' | 'off') => (pids[which] && requests[which] > 0 ? Math.round((hcpu[which] / requests[which]) * 1e7) / 10 : null);
  const [hOn, hOff] = [usPerRequest('on'), usPerRequest('off')];
  return {
    ratio: r3(pct(ratios, 50)), ratios: ratios.map(r3), ratio_p25: r3(pct(ratios, 25)), ratio_p75: r3(pct(ratios, 75)),
    on_rps: Math.round(pct(rps.on, 50)), off_rps: Math.round(pct(rps.off, 50)),
    agent_cpu_ms_per_10k_on: per10k('on'), agent_cpu_ms_per_10k_off: per10k('off'), requests_on: requests.on,
    haproxy_us_on: hOn, haproxy_us_off: hOff,
    // What the log costs HAProxy per request, and the ratio its CPU alone would allow.
    haproxy_us_added: hOn !== null && hOff !== null ? Math.round((hOn - hOff) * 10) / 10 : null,
    haproxy_cpu_off_vs_on: hOn && hOff ? r3(hOff / hOn) : null,
    haproxy_us_pairs_median: { on: Math.round(pct(hus.on, 50) * 10) / 10, off: Math.round(pct(hus.off, 50) * 10) / 10 },
  };
}

/** Lines and stick-table requests of every edge since `since`: completeness over the whole bench. */
export async function allEdgesCompleteness(db: Db, since: Date): Promise<{ lines: number; counted_requests: number; completeness: number | null }> {
  const rows = await trafficRepository(db).edgeTotals(since, new Date(Date.now() + 120_000));
  const lines = rows.reduce((n, r) => n + r.counted_lines, 0);
  const requests = rows.reduce((n, r) => n + r.counted_requests, 0);
  return { lines, counted_requests: requests, completeness: requests > 0 ? Math.round((lines / requests) * 10_000) / 10_000 : null };
}

/** The whole phase: figures for bench:edge's last line. */
export async function analyticsPhase(o: {
  on: OnOffEdge; startOff: () => Promise<OnOffEdge & { stop(): Promise<unknown>; cleanup(): Promise<void> }>; rounds: number; duration: number; samples: number;
  run: (port: number, seconds: number) => Promise<{ rps: number; total: number }>; db: Db; organizationId: string; destinationId: string; since: Date; log: (line: string) => void;
}): Promise<Record<string, unknown>> {
  const off = await o.startOff();
  onCleanup('edge (logging off)', async () => { await off.stop(); await off.cleanup(); });
  // Three short pairs per round asked (at least 9), each run half the --duration (at least 2 s):
  // about the same wall time as rounds of full-length runs, three times the pairs.
  const pairs = Math.max(9, o.rounds * 3);
  const seconds = Math.max(2, Math.round(o.duration / 2));
  o.log(`analytics: edge with the request log on (:${o.on.port}) and off (:${off.port}), shared cores, ${pairs} alternating pairs of ${seconds} s runs`);
  const onOff = await loggingOnOff({ on: o.on, off, pairs, seconds, log: o.log, run: o.run });
  await off.stop();
  await sleep(2_500); // the last flush of the logging edge (every 1 s in the bench)
  const c = await allEdgesCompleteness(o.db, o.since);
  const read = await analyticsReadLatency(o.db, o.organizationId, o.destinationId, o.samples * 4);
  o.log(`  logging on/off ${onOff.ratio} (median of ${pairs} pairs, quartiles ${onOff.ratio_p25}–${onOff.ratio_p75}; pairs ${onOff.ratios.join(', ')}); agent CPU ${onOff.agent_cpu_ms_per_10k_on} ms per 10k requests (logging off: ${onOff.agent_cpu_ms_per_10k_off})`);
  o.log(`  HAProxy CPU per request (all pairs): logging on ${onOff.haproxy_us_on} µs, off ${onOff.haproxy_us_off} µs → +${onOff.haproxy_us_added} µs, off/on ${onOff.haproxy_cpu_off_vs_on} (pair medians ${JSON.stringify(onOff.haproxy_us_pairs_median)})`);
  o.log(`  completeness ${c.completeness} (${c.lines} lines ÷ ${c.counted_requests} stick-table requests over the whole bench); 24 h of minutes read p50 ${read.p50_ms} ms, p99 ${read.p99_ms} ms (${read.buckets} buckets, in process)`);
  return {
    logging_on_vs_off: onOff.ratio, logging_on_vs_off_rounds: onOff.ratios, logging_on_vs_off_p25: onOff.ratio_p25, logging_on_vs_off_p75: onOff.ratio_p75,
    logging_pairs: pairs, logging_pair_seconds: seconds, logging_on_rps: onOff.on_rps, logging_off_rps: onOff.off_rps,
    haproxy_us_per_request_logging_on: onOff.haproxy_us_on, haproxy_us_per_request_logging_off: onOff.haproxy_us_off,
    haproxy_us_added_by_logging: onOff.haproxy_us_added, haproxy_cpu_logging_off_vs_on: onOff.haproxy_cpu_off_vs_on,
    agent_cpu_ms_per_10k_requests: onOff.agent_cpu_ms_per_10k_on, agent_cpu_ms_per_10k_requests_logging_off: onOff.agent_cpu_ms_per_10k_off,
    analytics_completeness: c.completeness, analytics_lines: c.lines, analytics_counted_requests: c.counted_requests,
    analytics_read_24h_minutes_p50_ms: read.p50_ms, analytics_read_24h_minutes_p99_ms: read.p99_ms, analytics_read_buckets: read.buckets,
    histogram_max_error_pct: histogramError(),
  };
}
