// `hostgate domains traffic <domain_id> [--since 1h]`: a domain's traffic from the analytics rows
// (docs/analytics.md), one line per bucket and a one-line sparkline of requests. The bucket width
// follows the range: minutes up to 6 h, hours up to 31 days, days beyond (≤ 400 days).
import type { Db } from '../db/pool.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { trafficRepository, type Interval } from '../db/repositories/traffic.ts';
import { emptyCounters, mergeCounters, sparkline, summarize } from '../model/analytics-counters.ts';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90m", "1h", "7d" → ms; null when unreadable or beyond 400 days. */
export function parseSince(text: string): number | null {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms > 0 && ms <= 400 * UNIT_MS.d! ? ms : null;
}

export async function domainTraffic(db: Db, domainId: string, sinceMs: number, out: (line: string) => void, now = Date.now()): Promise<boolean> {
  const domain = await domainsRepository(db).getById(domainId);
  if (!domain) return false;
  const interval: Interval = sinceMs <= 6 * UNIT_MS.h! ? 'minute' : sinceMs <= 31 * UNIT_MS.d! ? 'hour' : 'day';
  const width = interval === 'minute' ? UNIT_MS.m! : interval === 'hour' ? UNIT_MS.h! : UNIT_MS.d!;
  const from = Math.floor((now - sinceMs) / width) * width;
  const to = Math.ceil(now / width) * width;
  const series = await trafficRepository(db).series(domain.id, interval, new Date(from), new Date(to));
  const byStart = new Map(series.map((b) => [b.at, b.counters]));
  const requests: number[] = [];
  for (let at = from; at < to; at += width) requests.push(byStart.get(at)?.requests ?? 0);
  const totals = series.reduce((sum, b) => mergeCounters(sum, b.counters), emptyCounters());
  const s = summarize(totals);
  const ms = (v: number | null) => (v === null ? '-' : `${v} ms`);
  out(`${domain.hostname} (${domain.id}) since ${new Date(from).toISOString()} per ${interval}`);
  out(`requests ${sparkline(requests)} ${totals.requests} total`);
  out(`2xx ${totals.status_2xx}  3xx ${totals.status_3xx}  4xx ${totals.status_4xx}  5xx ${totals.status_5xx} (edge ${totals.edge_answers})  in ${totals.bytes_in} B  out ${totals.bytes_out} B  origin p50 ${ms(s.origin_ms_p50)} p95 ${ms(s.origin_ms_p95)} p99 ${ms(s.origin_ms_p99)}`);
  for (const b of series) {
    const x = summarize(b.counters);
    out(`${new Date(b.at).toISOString()}\t${b.counters.requests} req\t2xx ${b.counters.status_2xx}\t3xx ${b.counters.status_3xx}\t4xx ${b.counters.status_4xx}\t5xx ${b.counters.status_5xx}\tout ${b.counters.bytes_out} B\tp50 ${ms(x.origin_ms_p50)}\tp99 ${ms(x.origin_ms_p99)}`);
  }
  if (series.length === 0) out('no traffic in this range');
  return true;
}
