// Traffic analytics without HAProxy (issue 24): the histogram's error bound and the log-line
// parser (model/), the flush's minute and hour rows (the hour is the sum of its minutes, edges
// summed at read), retention, and the API: series, organization totals, top list pages,
// organization isolation, range and interval refusals. The edge end to end: edge-analytics.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { newId } from '../db/ids.ts';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { trafficRepository } from '../db/repositories/traffic.ts';
import {
  addCounts, addLine, bucketOf, COUNTER_FIELDS, countersFromText, mergeCounters, bucketValue, emptyCounters, histogramQuantile, histogramQuantiles, parseTrafficLine, sparkline, TrafficAggregator, type TrafficLine,
} from '../model/analytics-counters.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { run as cli, UsageError } from '../cli/hostgate.ts';

const line = (over: Partial<TrafficLine> = {}): TrafficLine => ({
  status: 200, bytesIn: 100, bytesOut: 1000, originMs: 20, totalMs: 25, httpVersion: 'HTTP/1.1', tlsVersion: 'TLSv1.3',
  termination: '--', counted: true, domainId: 'dom_x', host: 'a.test', ...over,
});

describe('traffic analytics: model', () => {
  it('every value read back from its bucket is within 2.5 % (or exact below 20 ms)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 3_000_000 }), (ms) => {
      const v = bucketValue(bucketOf(ms));
      if (ms === 0) return v === 0;
      return Math.abs(v - ms) / ms <= 0.0247 || v === ms;
    }), { numRuns: 5000 });
    for (let ms = 1; ms < 20; ms++) expect(bucketValue(bucketOf(ms))).toBe(ms);
  });

  it('the field-by-field counters read and add in COUNTER_FIELDS\' order, like the keyed ones', () => {
    const text = ['x', ...COUNTER_FIELDS.map((_, k) => String(1000 + k))];
    const c = countersFromText(text, 1);
    expect(COUNTER_FIELDS.map((f) => c[f])).toEqual(COUNTER_FIELDS.map((_, k) => 1000 + k));
    expect(Object.keys(c).sort()).toEqual([...COUNTER_FIELDS, 'origin_ms'].sort());
    const a = countersFromText(text, 1);
    addCounts(a, c);
    expect(a).toEqual(mergeCounters(countersFromText(text, 1), c));
  });

  it('percentiles of a mixed distribution within the bound; empty → null', () => {
    const c = emptyCounters();
    for (let i = 0; i < 500; i++) addLine(c, line({ originMs: 50 }));
    for (let i = 0; i < 500; i++) addLine(c, line({ originMs: 200 }));
    expect(Math.abs(histogramQuantile(c.origin_ms, 0.25)! - 50) / 50).toBeLessThanOrEqual(0.025);
    expect(Math.abs(histogramQuantile(c.origin_ms, 0.99)! - 200) / 200).toBeLessThanOrEqual(0.025);
    expect(histogramQuantile({}, 0.5)).toBeNull();
  });

  it('parses the log-format line; the host may hold spaces; other lines are refused', () => {
    expect(parseTrafficLine('hg1 200 321 4567 12 15 HTTP/2.0 TLSv1.3 -- 1 dom_abc shop.customer.com\n')).toEqual({
      status: 200, bytesIn: 321, bytesOut: 4567, originMs: 12, totalMs: 15, httpVersion: 'HTTP/2.0', tlsVersion: 'TLSv1.3', termination: '--',
      counted: true, domainId: 'dom_abc', host: 'shop.customer.com',
    });
    expect(parseTrafficLine('hg1 421 80 300 -1 0 HTTP/1.1 TLSv1.2 LR - - weird host')).toMatchObject({ domainId: null, counted: false, originMs: -1, host: 'weird host' });
    expect(parseTrafficLine('hg1 200 x 1 1 1 HTTP/1.1 - -- 1 dom_a a')).toBeNull();
    expect(parseTrafficLine('<134>Nov 26 haproxy: something')).toBeNull();
    const a = new TrafficAggregator();
    a.addRaw('garbage', 0);
    a.addRaw('hg1 200 1 2 3 4 HTTP/1.1 TLSv1.3 -- 1 dom_a a.test', 61_000);
    a.addRaw('hg1 502 1 2 -1 4 HTTP/1.1 TLSv1.3 SC 1 dom_a a.test', 62_000);
    const batch = a.take();
    expect(batch).toMatchObject({ lines: 2, countedLines: 2, malformed: 1, unattributed: 0 });
    expect(batch.rows).toEqual([{ domainId: 'dom_a', minute: 60_000, counters: expect.objectContaining({ requests: 2, status_2xx: 1, status_5xx: 1, edge_answers: 1 }) }]);
    a.putBack(batch);
    expect(a.take().rows[0]!.counters.requests).toBe(2);
  });

  it('sparkline: eight levels, flat for nothing', () => {
    expect(sparkline([0, 1, 2, 4, 8])).toBe('▁▁▂▄█');
    expect(sparkline([0, 0])).toBe('▁▁');
  });
});

describe('traffic analytics: storage and API', () => {
  let t: TestApp;
  const HOUR = 3_600_000;
  const thisHour = Math.floor(Date.now() / HOUR) * HOUR;

  async function edge(id: string) {
    await t.database.db.query(sql.unsafe`insert into edge_nodes (id) values (${id}) on conflict do nothing`);
    return id;
  }
  async function domainOf(organizationId: string, hostname: string) {
    const destination = await destinationsRepository(t.database.db).create({ organizationId, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const id = newId('domain');
    await t.database.db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex, status) values (${id}, ${organizationId}, ${destination.id}, ${hostname}, false, 'active')`);
    return id;
  }
  /** Flushes `n` lines of `domainId` at `minute` (ms) from `edgeId`. */
  async function traffic(edgeId: string, domainId: string, minute: number, n: number, over: Partial<TrafficLine> = {}) {
    const a = new TrafficAggregator();
    for (let i = 0; i < n; i++) a.add(line({ domainId, ...over }), minute);
    await trafficRepository(t.database.db).flush(edgeId, a.take(), null);
  }

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
  });
  afterAll(async () => { await t?.close(); });

  it('the hour row is the sum of its minutes; reads sum over edges; flushes add up, never replace', async () => {
    const { org } = await createOrgWithKey(t);
    const d = await domainOf(org.id, 'rollup.test');
    const [e1, e2] = [await edge('edge-a1'), await edge('edge-a2')];
    await traffic(e1, d, thisHour, 3, { originMs: 10 });
    await traffic(e1, d, thisHour, 2, { status: 500, originMs: 300 });
    await traffic(e1, d, thisHour + 60_000, 4, { status: 404 });
    await traffic(e2, d, thisHour, 1, { httpVersion: 'HTTP/2.0' });
    const repo = trafficRepository(t.database.db);
    const minutes = await repo.series(d, 'minute', new Date(thisHour), new Date(thisHour + HOUR));
    expect(minutes.map((b) => [b.at, b.counters.requests])).toEqual([[thisHour, 6], [thisHour + 60_000, 4]]);
    expect(minutes[0]!.counters).toMatchObject({ status_2xx: 4, status_5xx: 2, http2: 1, bytes_out: 6000 });
    const [hour] = await repo.series(d, 'hour', new Date(thisHour), new Date(thisHour + HOUR));
    const summed = minutes.reduce((s, b) => { for (const k of Object.keys(b.counters.origin_ms)) s.h[k] = (s.h[k] ?? 0) + b.counters.origin_ms[k]!; s.n += b.counters.requests; return s; }, { n: 0, h: {} as Record<string, number> });
    expect(hour!.counters.requests).toBe(summed.n);
    expect(hour!.counters.origin_ms).toEqual(summed.h);
    // The API's fast read: the minute two edges wrote merges their histograms; the other keeps its row's percentiles.
    const report = await repo.report(d, 'minute', new Date(thisHour), new Date(thisHour + HOUR));
    expect(report.buckets.map((b) => b.counters.requests)).toEqual([6, 4]);
    expect(report.buckets[0]!.percentiles).toEqual(histogramQuantiles(minutes[0]!.counters.origin_ms, [0.5, 0.95, 0.99]));
    expect(report.buckets[1]!.percentiles).toEqual(histogramQuantiles(minutes[1]!.counters.origin_ms, [0.5, 0.95, 0.99]));
    expect(report.totals.origin_ms).toEqual(summed.h);
  });

  it('percentiles Postgres keeps per row equal those the model reads (random histograms)', async () => {
    const histograms = fc.sample(fc.dictionary(fc.integer({ min: 0, max: 300 }).map(String), fc.integer({ min: 1, max: 1000 }), { minKeys: 1, maxKeys: 40 }), 60);
    for (const h of histograms) {
      const r = await t.database.db.one(sql.unsafe`select hg_hist_quantile(${JSON.stringify(h)}::jsonb, 0.5) as a, hg_hist_quantile(${JSON.stringify(h)}::jsonb, 0.95) as b, hg_hist_quantile(${JSON.stringify(h)}::jsonb, 0.99) as c`) as { a: number; b: number; c: number };
      expect([r.a, r.b, r.c]).toEqual(histogramQuantiles(h, [0.5, 0.95, 0.99]));
    }
  });

  it('retention: minutes older than 48 h and hours older than 400 days go, newer stay', async () => {
    const { org } = await createOrgWithKey(t);
    const d = await domainOf(org.id, 'retention.test');
    const e = await edge('edge-r1');
    const old = thisHour - 50 * HOUR;
    await traffic(e, d, old, 2);
    await traffic(e, d, thisHour, 1);
    await t.database.db.query(sql.unsafe`
      insert into domain_traffic_hours (domain_id, hour, edge_id, organization_id, requests) values (${d}, ${new Date(thisHour - 401 * 24 * HOUR).toISOString()}, ${e}, ${org.id}, 9)`);
    const repo = trafficRepository(t.database.db);
    while (await repo.purgeMinutes(1000) > 0) { /* until none left */ }
    while (await repo.purgeHours(1000) > 0) { /* until none left */ }
    expect((await repo.series(d, 'minute', new Date(old - HOUR), new Date(thisHour + HOUR))).map((b) => b.at)).toEqual([thisHour]);
    const hours = await repo.series(d, 'hour', new Date(thisHour - 402 * 24 * HOUR), new Date(thisHour + HOUR));
    expect(hours.map((b) => b.at)).toEqual([old, thisHour]);
  });

  it('GET /v1/domains/{id}/analytics: totals, buckets with percentiles; another organization\'s domain is not found', async () => {
    const a = await createOrgWithKey(t);
    const b = await createOrgWithKey(t);
    const d = await domainOf(a.org.id, 'api.analytics.test');
    const e = await edge('edge-api');
    await traffic(e, d, thisHour, 10, { originMs: 40 });
    await traffic(e, d, thisHour + 60_000, 5, { status: 503, originMs: -1 });
    const from = new Date(thisHour).toISOString();
    const to = new Date(thisHour + 2 * 60_000).toISOString();
    const res = await client(t.app, a.auth).get(`/v1/domains/${d}/analytics?from=${from}&to=${to}&interval=minute`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ domain_id: d, hostname: 'api.analytics.test', start: from, end: to, interval: 'minute' });
    expect(data.totals).toMatchObject({ requests: 15, status_2xx: 10, status_5xx: 5, edge_answers: 5, bytes_out: 15000 });
    expect(data.buckets).toHaveLength(2);
    expect(data.buckets[0]).toMatchObject({ start: from, requests: 10 });
    expect(Math.abs(data.buckets[0].origin_ms_p50 - 40) / 40).toBeLessThanOrEqual(0.025);
    expect(data.buckets[1].origin_ms_p50).toBeNull();
    const other = await client(t.app, b.auth).get(`/v1/domains/${d}/analytics`);
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('domain_not_found');
    const hourly = (await client(t.app, a.auth).get(`/v1/domains/${d}/analytics`)).json().data;
    expect(hourly.interval).toBe('hour');
    expect(hourly.totals.requests).toBe(15);
  });

  it('refuses bad ranges and intervals with stable codes', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const d = await domainOf(org.id, 'refusals.analytics.test');
    const api = client(t.app, auth);
    const expectCode = async (url: string, status: number, code: string, param?: string) => {
      const res = await api.get(url);
      expect([url, res.statusCode, res.json().error.code]).toEqual([url, status, code]);
      if (param) expect(res.json().error.param).toBe(param);
    };
    await expectCode(`/v1/domains/${d}/analytics?interval=minute&from=2026-11-20T00:00:00Z&to=2026-11-23T00:00:00Z`, 400, 'analytics_range_too_long', 'interval');
    await expectCode(`/v1/domains/${d}/analytics?interval=hour&from=2026-01-01T00:00:00Z&to=2026-11-23T00:00:00Z`, 400, 'analytics_range_too_long', 'interval');
    await expectCode(`/v1/domains/${d}/analytics?interval=day&from=2024-01-01T00:00:00Z&to=2026-11-23T00:00:00Z`, 400, 'analytics_range_too_long');
    await expectCode(`/v1/domains/${d}/analytics?from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z`, 400, 'analytics_range_invalid', 'from');
    await expectCode(`/v1/domains/${d}/analytics?interval=week`, 400, 'invalid_request');
    await expectCode(`/v1/domains/${d}/analytics?from=yesterday`, 400, 'invalid_request');
    await expectCode('/v1/analytics?interval=minute&from=2026-11-20T00:00:00Z&to=2026-11-23T00:00:00Z', 400, 'analytics_range_too_long');
    await expectCode('/v1/analytics?sort=latency', 400, 'invalid_request');
    await expectCode('/v1/analytics?cursor=bm9wZQ', 400, 'invalid_request', 'cursor');
    await expectCode('/v1/analytics?limit=0', 400, 'invalid_request');
  });

  it('GET /v1/analytics: the organization\'s totals only, its top hostnames by requests, errors or bytes, in pages', async () => {
    const a = await createOrgWithKey(t);
    const b = await createOrgWithKey(t);
    const e = await edge('edge-top');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await domainOf(a.org.id, `top${i}.analytics.test`);
      ids.push(d);
      await traffic(e, d, thisHour, 10 + i, { bytesOut: 100 * (5 - i) });
      if (i === 0) await traffic(e, d, thisHour, 7, { status: 500, bytesOut: 0 });
    }
    const foreign = await domainOf(b.org.id, 'foreign.analytics.test');
    await traffic(e, foreign, thisHour, 1000);
    const api = client(t.app, a.auth);
    const first = (await api.get('/v1/analytics?limit=2')).json().data;
    expect(first.totals.requests).toBe(10 + 11 + 12 + 13 + 14 + 7);
    expect(first.top.map((h: { hostname: string }) => h.hostname)).toEqual(['top0.analytics.test', 'top4.analytics.test']);
    expect(first.has_more).toBe(true);
    const second = (await api.get(`/v1/analytics?limit=2&cursor=${first.next_cursor}`)).json().data;
    expect(second.top.map((h: { hostname: string }) => h.hostname)).toEqual(['top3.analytics.test', 'top2.analytics.test']);
    const third = (await api.get(`/v1/analytics?limit=2&cursor=${second.next_cursor}`)).json().data;
    expect(third.top.map((h: { hostname: string }) => h.hostname)).toEqual(['top1.analytics.test']);
    expect([third.has_more, third.next_cursor]).toEqual([false, null]);
    const byErrors = (await api.get('/v1/analytics?sort=errors&limit=1')).json().data;
    expect(byErrors.top[0]).toMatchObject({ hostname: 'top0.analytics.test', errors: 7 });
    const byBytes = (await api.get('/v1/analytics?sort=bytes&limit=1')).json().data;
    expect(byBytes.top[0].hostname).toBe('top0.analytics.test');
    const minutes = (await api.get(`/v1/analytics?interval=minute&from=${new Date(thisHour).toISOString()}&to=${new Date(thisHour + 60_000).toISOString()}`)).json().data;
    expect(minutes.totals.requests).toBe(first.totals.requests);
    expect((await client(t.app, b.auth).get('/v1/analytics')).json().data.totals.requests).toBe(1000);
  });

  it('CLI: domains traffic <id> --since prints the series with a sparkline; bad input refused', async () => {
    const { org } = await createOrgWithKey(t);
    const d = await domainOf(org.id, 'cli.analytics.test');
    const e = await edge('edge-cli');
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    await traffic(e, d, now - 2 * 60_000, 4, { originMs: 30 });
    await traffic(e, d, now, 8, { status: 404 });
    const lines: string[] = [];
    const env = { DATABASE_URL: t.database.url };
    await cli(['domains', 'traffic', d, '--since', '5m'], (l) => lines.push(l), env);
    expect(lines[0]).toMatch(/^cli\.analytics\.test \(dom_\w+\) since .* per minute$/);
    expect(lines[1]).toMatch(/^requests [▁▂▃▄▅▆▇█]{5,6} 12 total$/);
    expect(lines[1]).toContain('█');
    expect(lines[2]).toMatch(/2xx 4 .* 4xx 8 /);
    expect(lines.filter((l) => /\treq\t/.test(l) || / req\t/.test(l))).toHaveLength(2);
    await expect(cli(['domains', 'traffic', d, '--since', 'forever'], () => undefined, env)).rejects.toThrow(UsageError);
    await expect(cli(['domains', 'traffic', 'dom_nope'], () => undefined, env)).rejects.toThrow(/does not exist/);
  });
});
