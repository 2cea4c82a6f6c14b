// Traffic analytics (issue 24, docs/analytics.md): a domain's series and the organization's totals
// with its top hostnames. Any key of the organization reads them (like GET /v1/usage). Ranges are
// bounded per interval so that one answer is one bounded index range scan.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { trafficRepository, type Interval, type ReportBucket } from '../../db/repositories/traffic.ts';
import { summarize, type TrafficCounters } from '../../model/analytics-counters.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { DomainAnalytics, DomainAnalyticsQuery, OrganizationAnalytics, OrganizationAnalyticsQuery } from '../schemas/analytics.ts';
import { DataOf, IdParams } from '../schemas/common.ts';

const HOUR_MS = 3_600_000;
const WIDTH_MS: Record<Interval, number> = { minute: 60_000, hour: HOUR_MS, day: 24 * HOUR_MS };
/** The longest range per interval: minutes are kept 48 h; 31 days of hours, 400 days of days. */
export const MAX_RANGE_HOURS: Record<Interval, number> = { minute: 48, hour: 31 * 24, day: 400 * 24 };

/** from/to → an aligned [from, to) or the refusal (analytics_range_invalid / analytics_range_too_long). */
export function resolveRange(q: { from?: string | undefined; to?: string | undefined; interval?: Interval | undefined }, now: number): { from: Date; to: Date; interval: Interval } {
  const interval = q.interval ?? 'hour';
  const w = WIDTH_MS[interval];
  const to = q.to === undefined ? now : Date.parse(q.to);
  const from = q.from === undefined ? to - 24 * HOUR_MS : Date.parse(q.from);
  if (Number.isNaN(from) || Number.isNaN(to)) throw new ApiError('analytics_range_invalid', 'from and to must be RFC 3339 timestamps', { param: Number.isNaN(from) ? 'from' : 'to' });
  if (from >= to) throw new ApiError('analytics_range_invalid', `from (${new Date(from).toISOString()}) must be before to (${new Date(to).toISOString()})`, { param: 'from' });
  const start = Math.floor(from / w) * w;
  const end = Math.ceil(to / w) * w;
  const max = MAX_RANGE_HOURS[interval];
  if (end - start > max * HOUR_MS) {
    const spans = Math.ceil((end - start) / HOUR_MS);
    const hint = interval === 'minute' ? 'use interval=hour, or a shorter range' : interval === 'hour' ? 'use interval=day, or a shorter range' : 'use a shorter range (hours and days are kept 400 days)';
    throw new ApiError('analytics_range_too_long', `a range of ${interval} buckets spans at most ${max} h; this one spans ${spans} h: ${hint}`, { param: 'interval', details: { interval, max_hours: max } });
  }
  return { from: new Date(start), to: new Date(end), interval };
}

/**
 * The counts the API shows, field by field, not `{ ...rest }`: an object rest per bucket was
 * ≈ 2.5 µs each, most of the 24 h read's time in JavaScript (1,440 buckets; docs/analytics.md,
 * "Reading fast").
 */
function countsOf(c: TrafficCounters) {
  return {
    requests: c.requests, status_2xx: c.status_2xx, status_3xx: c.status_3xx, status_4xx: c.status_4xx, status_5xx: c.status_5xx,
    edge_answers: c.edge_answers, no_answer: c.no_answer, bytes_in: c.bytes_in, bytes_out: c.bytes_out, http1: c.http1, http2: c.http2, tls12: c.tls12, tls13: c.tls13,
  };
}

export function presentCounters(c: TrafficCounters) {
  return { ...countsOf(c), ...summarize(c) };
}

const mean = (c: TrafficCounters) => (c.requests > 0 ? Math.round((c.total_ms_sum / c.requests) * 10) / 10 : null);

/** The answer of GET /v1/domains/{id}/analytics (also what bench:edge times). */
export function presentDomainAnalytics(domain: { id: string; hostname: string }, range: { from: Date; to: Date; interval: Interval }, report: { buckets: ReportBucket[]; totals: TrafficCounters }) {
  const buckets = report.buckets.map((b) => {
    const [p50, p95, p99] = b.percentiles;
    return { start: new Date(b.at).toISOString(), ...countsOf(b.counters), origin_ms_p50: p50 ?? null, origin_ms_p95: p95 ?? null, origin_ms_p99: p99 ?? null, total_ms_mean: mean(b.counters) };
  });
  return { domain_id: domain.id, hostname: domain.hostname, start: range.from.toISOString(), end: range.to.toISOString(), interval: range.interval, totals: presentCounters(report.totals), buckets };
}

function encodeTopCursor(offset: number): string { return Buffer.from(JSON.stringify(['top', offset])).toString('base64url'); }
function decodeTopCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && v[0] === 'top' && Number.isInteger(v[1]) && (v[1] as number) >= 0 && (v[1] as number) <= 100_000) return v[1] as number;
  } catch { /* below */ }
  throw new ApiError('invalid_request', 'cursor is not valid: pass the next_cursor value of a previous page of GET /v1/analytics unchanged', { param: 'cursor' });
}

export const analyticsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const traffic = trafficRepository(app.deps.db);
  const domains = domainsRepository(app.deps.db);

  app.get('/domains/:id/analytics', {
    config: { apiKey: true, errors: ['domain_not_found', 'analytics_range_invalid', 'analytics_range_too_long'] },
    schema: {
      tags: ['analytics'], operationId: 'domains.analytics', summary: "A domain's traffic: requests, status classes, bytes and origin-time percentiles per minute, hour or day",
      description: 'Traffic the edge served for this domain over [from, to), summed over every edge, as totals and a series of buckets (buckets without traffic are absent). Ranges: minute ≤ 48 h, hour ≤ 31 days, day ≤ 400 days. Counted from the request log, which may lose lines under overload; billing bytes come from exact counters (docs/analytics.md).',
      params: IdParams('domain'),
      querystring: DomainAnalyticsQuery,
      response: { 200: DataOf(DomainAnalytics, "The domain's traffic") },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const range = resolveRange(request.query, Date.now());
    const domain = await domains.get(organizationId, request.params.id);
    if (!domain) throw new ApiError('domain_not_found', `domain ${request.params.id} does not exist`, { param: 'id' });
    return { data: presentDomainAnalytics(domain, range, await traffic.report(domain.id, range.interval, range.from, range.to)) };
  });

  app.get('/analytics', {
    config: { apiKey: true, errors: ['analytics_range_invalid', 'analytics_range_too_long'] },
    schema: {
      tags: ['analytics'], operationId: 'analytics.retrieve', summary: "The organization's traffic totals and its top hostnames",
      description: "Traffic over [from, to) of every domain of the organization, summed over every edge, and its hostnames ordered by requests, errors or bytes (a page of `limit`; `next_cursor` continues). Ranges as for a domain's analytics.",
      querystring: OrganizationAnalyticsQuery,
      response: { 200: DataOf(OrganizationAnalytics, "The organization's traffic") },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const q = request.query;
    const range = resolveRange(q, Date.now());
    const sort = q.sort ?? 'requests';
    const limit = q.limit ?? 10;
    const offset = decodeTopCursor(q.cursor);
    const [totals, rows] = await Promise.all([
      traffic.organizationTotals(organizationId, range.interval, range.from, range.to),
      traffic.topHostnames(organizationId, range.interval, range.from, range.to, sort, limit + 1, offset),
    ]);
    const hasMore = rows.length > limit;
    return {
      data: {
        start: range.from.toISOString(), end: range.to.toISOString(), interval: range.interval, sort, totals: presentCounters(totals),
        top: rows.slice(0, limit), has_more: hasMore, next_cursor: hasMore ? encodeTopCursor(offset + limit) : null,
      },
    };
  });
};
