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
import { CLK_TCK } from './proc-sampler.ts';
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

/**
 * The edge with the request log on and an edge with it off (HOSTGATE_EDGE_TRAFFIC_LOG=off), side
 * by side on the same cores, the same load against each in alternating rounds: the median of the
 * rounds' on ÷ off req/s ratios, and each agent's own CPU per 10,000 requests.
 */
export async function loggingOnOff(options: {
  on: OnOffEdge; off: OnOffEdge; rounds: number;
  run: (port: number) => Promise<{ rps: number; total: number }>;
  log: (line: string) => void;
}): Promise<{ ratio: number; ratios: number[]; on_rps: number; off_rps: number; agent_cpu_ms_per_10k_on: number | null; agent_cpu_ms_per_10k_off: number | null; requests_on: number }> {
  const pids = { on: agentPid(options.on.stateDir), off: agentPid(options.off.stateDir) };
  const cpu = { on: 0, off: 0 };
  const requests = { on: 0, off: 0 };
  const rps = { on: [] as number[], off: [] as number[] };
  await options.run(options.on.port); // warm-up of both
  await options.run(options.off.port);
  for (let i = 0; i < options.rounds; i++) {
    for (const which of (i % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as ('on' | 'off')[]) {
      const pid = pids[which];
      const c0 = pid ? ownCpuSeconds(pid) : 0;
      const r = await options.run(options[which].port);
      cpu[which] += pid ? ownCpuSeconds(pid) - c0 : 0;
      requests[which] += r.total;
      rps[which].push(r.rps);
    }
    options.log(`  analytics round ${i + 1}: logging on ${Math.round(rps.on[i]!)} req/s, off ${Math.round(rps.off[i]!)} req/s → ${Math.round((rps.on[i]! / rps.off[i]!) * 1000) / 1000}`);
  }
  const ratios = rps.on.map((v, k) => v / rps.off[k]!);
  const per10k = (which: 'on' | 'off') => (pids[which] && requests[which] > 0 ? Math.round((cpu[which] / requests[which]) * 10_000 * 1000) : null);
  return {
    ratio: Math.round(pct(ratios, 50) * 1000) / 1000, ratios: ratios.map((r) => Math.round(r * 1000) / 1000),
    on_rps: Math.round(pct(rps.on, 50)), off_rps: Math.round(pct(rps.off, 50)),
    agent_cpu_ms_per_10k_on: per10k('on'), agent_cpu_ms_per_10k_off: per10k('off'), requests_on: requests.on,
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
  on: OnOffEdge; startOff: () => Promise<OnOffEdge & { stop(): Promise<unknown>; cleanup(): Promise<void> }>; rounds: number; samples: number;
  run: (port: number) => Promise<{ rps: number; total: number }>; db: Db; organizationId: string; destinationId: string; since: Date; log: (line: string) => void;
}): Promise<Record<string, unknown>> {
  const off = await o.startOff();
  onCleanup('edge (logging off)', async () => { await off.stop(); await off.cleanup(); });
  o.log(`analytics: edge with the request log on (:${o.on.port}) and off (:${off.port}), shared cores, ${o.rounds} alternating rounds`);
  const onOff = await loggingOnOff({ on: o.on, off, rounds: o.rounds, log: o.log, run: o.run });
  await off.stop();
  await sleep(2_500); // the last flush of the logging edge (every 1 s in the bench)
  const c = await allEdgesCompleteness(o.db, o.since);
  const read = await analyticsReadLatency(o.db, o.organizationId, o.destinationId, o.samples * 4);
  o.log(`  logging on/off ${onOff.ratio} (rounds ${onOff.ratios.join(', ')}); agent CPU ${onOff.agent_cpu_ms_per_10k_on} ms per 10k requests (logging off: ${onOff.agent_cpu_ms_per_10k_off})`);
  o.log(`  completeness ${c.completeness} (${c.lines} lines ÷ ${c.counted_requests} stick-table requests over the whole bench); 24 h of minutes read p50 ${read.p50_ms} ms, p99 ${read.p99_ms} ms (${read.buckets} buckets, in process)`);
  return {
    logging_on_vs_off: onOff.ratio, logging_on_vs_off_rounds: onOff.ratios, logging_on_rps: onOff.on_rps, logging_off_rps: onOff.off_rps,
    agent_cpu_ms_per_10k_requests: onOff.agent_cpu_ms_per_10k_on, agent_cpu_ms_per_10k_requests_logging_off: onOff.agent_cpu_ms_per_10k_off,
    analytics_completeness: c.completeness, analytics_lines: c.lines, analytics_counted_requests: c.counted_requests,
    analytics_read_24h_minutes_p50_ms: read.p50_ms, analytics_read_24h_minutes_p99_ms: read.p99_ms, analytics_read_buckets: read.buckets,
    histogram_max_error_pct: histogramError(),
  };
}
