// Traffic analytics (migration 014, docs/analytics.md): the edge agent's flush (one statement:
// minute rows, hour rows, the edge's completeness tally and its stick-table baseline), the reads
// behind GET /v1/domains/{id}/analytics and GET /v1/analytics, and the retention purges.
import { Type, type Static } from 'typebox';
import { addCounts, COUNTER_FIELDS, countersFromText, emptyCounters, histogramQuantiles, mergeCounters, mergeHistograms, type Histogram, type TrafficBatch, type TrafficCounters } from '../../model/analytics-counters.ts';
import { row, sql, type Db } from '../pool.ts';

export const TRAFFIC_MINUTES_KEPT_HOURS = 48;
export const TRAFFIC_HOURS_KEPT_DAYS = 400;

const counterColumns = Object.fromEntries(COUNTER_FIELDS.map((f) => [f, Type.Number()])) as Record<(typeof COUNTER_FIELDS)[number], ReturnType<typeof Type.Number>>;
const BucketRow = Type.Object({ at: Type.Number(), ...counterColumns, origin_ms: Type.Record(Type.String(), Type.Number()) });
const Bucket = row(BucketRow);
type BucketRow = Static<typeof BucketRow>;
/** The series of report() as one text (null: no buckets); report() says its layout. */
const SeriesText = row(Type.Object({ series: Type.Union([Type.String(), Type.Null()]) }));
const HistRow = row(Type.Object({ at: Type.Number(), origin_ms: Type.Record(Type.String(), Type.Number()) }));
const OnlyHist = row(Type.Object({ origin_ms: Type.Record(Type.String(), Type.Number()) }));
const QS = [0.5, 0.95, 0.99] as const;
/** A bucket as the API shows it: counters, and p50/p95/p99 of the origin time (null: none). */
export interface ReportBucket { at: number; counters: TrafficCounters; percentiles: (number | null)[] }
const FlushResult = row(Type.Object({ counted_requests: Type.Union([Type.Number(), Type.Null()]) }));
const TopRow = Type.Object({
  domain_id: Type.String(), hostname: Type.String(), requests: Type.Number(), errors: Type.Number(), bytes: Type.Number(),
  status_4xx: Type.Number(), status_5xx: Type.Number(), bytes_in: Type.Number(), bytes_out: Type.Number(),
});
const Top = row(TopRow);
export type TopHostnameRow = Static<typeof TopRow>;
const Totals = row(Type.Object({ ...counterColumns }));
const EdgeTotalsRow = Type.Object({ edge_id: Type.String(), lines: Type.Number(), counted_lines: Type.Number(), counted_requests: Type.Number(), unattributed: Type.Number(), malformed: Type.Number() });
const EdgeTotals = row(EdgeTotalsRow);
const EdgeRequestsRow = Type.Object({ edge_id: Type.String(), requests: Type.Number(), status_5xx: Type.Number(), bytes_in: Type.Number(), bytes_out: Type.Number() });
const EdgeRequests = row(EdgeRequestsRow);

export type Interval = 'minute' | 'hour' | 'day';
export type TopSort = 'requests' | 'errors' | 'bytes';

/** The stick table's request total at the flush, for completeness; null when HAProxy could not be read. */
export interface StickReading { processKey: string; requests: number }

const col = (f: string) => sql.identifier([f]);

export function trafficRepository(db: Db) {
  return {
    /**
     * Adds one flush of an edge, in one statement. Rows of domains no longer in the table are
     * dropped (a line can outlive its domain's row only in tests that delete them). Returns the
     * requests the stick table counted since the previous flush (null without a reading).
     */
    async flush(edgeId: string, batch: TrafficBatch, reading: StickReading | null, at: Date = new Date()): Promise<{ countedRequests: number | null }> {
      const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000).toISOString();
      const r = batch.rows;
      const arrays = COUNTER_FIELDS.map((f) => sql.fragment`${sql.array(r.map((x) => x.counters[f]), 'int8')}`);
      const names = sql.join(COUNTER_FIELDS.map(col), sql.fragment`, `);
      const sums = sql.join(COUNTER_FIELDS.map((f) => sql.fragment`sum(${col(f)})`), sql.fragment`, `);
      const addMinute = sql.join(COUNTER_FIELDS.map((f) => sql.fragment`${col(f)} = t.${col(f)} + excluded.${col(f)}`), sql.fragment`, `);
      const result = await db.one(sql.type(FlushResult)`
        with input as (
          select * from unnest(${sql.array(r.map((x) => x.domainId), 'text')}, ${sql.array(r.map((x) => new Date(x.minute).toISOString()), 'timestamptz')},
            ${sql.join(arrays, sql.fragment`, `)}, ${sql.array(r.map((x) => JSON.stringify(x.counters.origin_ms)), 'jsonb')})
            as i (domain_id, minute, ${names}, origin_ms)
        ), known as (
          select i.*, d.organization_id from input i join domains d on d.id = i.domain_id
        ), minutes as (
          insert into domain_traffic_minutes as t (domain_id, minute, edge_id, organization_id, ${names}, origin_ms)
          select domain_id, minute, ${edgeId}, organization_id, ${names}, origin_ms from known
          on conflict (domain_id, minute, edge_id) do update set ${addMinute}, origin_ms = hg_hist_add(t.origin_ms, excluded.origin_ms)
        ), hours as (
          insert into domain_traffic_hours as t (domain_id, hour, edge_id, organization_id, ${names}, origin_ms)
          select domain_id, date_trunc('hour', minute), ${edgeId}, organization_id, ${sums}, hg_hist_sum(origin_ms) from known
          group by domain_id, date_trunc('hour', minute), organization_id
          on conflict (domain_id, hour, edge_id) do update set ${addMinute}, origin_ms = hg_hist_add(t.origin_ms, excluded.origin_ms)
        ), prev as (
          select process_key, requests from edge_traffic_baseline where edge_id = ${edgeId}
        ), counted as (
          -- Requests since the last flush of the same HAProxy worker; a new worker (or a first flush)
          -- counts all it counted since it started, which is when the receiver was already listening.
          select case when ${reading?.processKey ?? null}::text is null then null
                      when (select process_key from prev) = ${reading?.processKey ?? null}::text then greatest(0, ${reading?.requests ?? 0}::int8 - (select requests from prev))
                      else ${reading?.requests ?? 0}::int8 end as n
        ), baseline as (
          insert into edge_traffic_baseline (edge_id, process_key, requests)
          select ${edgeId}, ${reading?.processKey ?? ''}, ${reading?.requests ?? 0} where ${reading !== null}
          on conflict (edge_id) do update set process_key = excluded.process_key, requests = excluded.requests, updated_at = hg_now()
        ), tally as (
          insert into edge_traffic_minutes as t (edge_id, minute, lines, counted_lines, counted_requests, unattributed, malformed)
          select ${edgeId}, ${minute}, ${batch.lines}, ${batch.countedLines}, coalesce((select n from counted), ${batch.countedLines}), ${batch.unattributed}, ${batch.malformed}
          on conflict (edge_id, minute) do update set lines = t.lines + excluded.lines, counted_lines = t.counted_lines + excluded.counted_lines,
            counted_requests = t.counted_requests + excluded.counted_requests, unattributed = t.unattributed + excluded.unattributed, malformed = t.malformed + excluded.malformed
        )
        select (select n from counted) as counted_requests`);
      return { countedRequests: result.counted_requests };
    },

    /**
     * A domain's buckets in [from, to), summed over edges: minutes or hours by one range scan of
     * the primary key; days are hours summed by UTC day. Buckets without traffic are absent.
     */
    async series(domainId: string, interval: Interval, from: Date, to: Date): Promise<{ at: number; counters: TrafficCounters }[]> {
      const rows = interval === 'minute'
        ? await db.any(sql.type(Bucket)`
            select (extract(epoch from minute) * 1000)::int8 as at, ${sql.join(COUNTER_FIELDS.map(col), sql.fragment`, `)}, origin_ms
            from domain_traffic_minutes where domain_id = ${domainId} and minute >= ${from.toISOString()} and minute < ${to.toISOString()} order by minute`)
        : await db.any(sql.type(Bucket)`
            select (extract(epoch from hour) * 1000)::int8 as at, ${sql.join(COUNTER_FIELDS.map(col), sql.fragment`, `)}, origin_ms
            from domain_traffic_hours where domain_id = ${domainId} and hour >= ${from.toISOString()} and hour < ${to.toISOString()} order by hour`);
      return sumByBucket(rows, interval === 'day' ? 86_400_000 : 1);
    },

    /**
     * What GET /v1/domains/{id}/analytics shows, read fast: minute or hour buckets summed over
     * edges in SQL with the percentiles each row keeps (the histograms are fetched only for
     * buckets that several edges wrote), and the range's totals with a histogram merged from the
     * whole hours inside it plus the minutes at its ends. Days: hours summed by day (histograms).
     */
    async report(domainId: string, interval: Interval, from: Date, to: Date): Promise<{ buckets: ReportBucket[]; totals: TrafficCounters }> {
      if (interval === 'day') {
        const days = await this.series(domainId, 'day', from, to);
        const totals = days.reduce((sum, b) => mergeCounters(sum, b.counters), emptyCounters());
        return { buckets: days.map((b) => ({ at: b.at, counters: b.counters, percentiles: histogramQuantiles(b.counters.origin_ms, QS) })), totals };
      }
      const t = interval === 'minute' ? sql.identifier(['domain_traffic_minutes']) : sql.identifier(['domain_traffic_hours']);
      const at = interval === 'minute' ? sql.identifier(['minute']) : sql.identifier(['hour']);
      // One row holding the series as text: comma-separated, an edge's bucket after another in
      // time order (the primary key's), each its fields (at, the counters in COUNTER_FIELDS'
      // order, p50, p95, p99), an absent percentile empty; rows of one minute from several edges
      // are summed here. Measured over 1,440 buckets (docs/analytics.md, "Reading fast"): as rows,
      // ≈ 8 µs each in the client (row objects, a type parser per column, the per-row schema
      // check); as one JSON array, Postgres's json_build_array/json_agg cost more than the rows
      // saved; grouping in SQL cost Postgres 3.5 ms of its 9.5; this text costs the client ≈ 0.5 ms.
      const fields = [sql.fragment`(extract(epoch from ${at}) * 1000)::int8`, ...COUNTER_FIELDS.map(col), sql.fragment`origin_p50`, sql.fragment`origin_p95`, sql.fragment`origin_p99`];
      const text = await db.oneFirst(sql.type(SeriesText)`
        select string_agg(concat(${sql.join(fields, sql.fragment`, ',', `)}), ',' order by ${at}) as series
        from ${t} where domain_id = ${domainId} and ${at} >= ${from.toISOString()} and ${at} < ${to.toISOString()}`);
      const values = text === null ? [] : text.split(',');
      const n = COUNTER_FIELDS.length;
      const width = n + 4;
      const orNull = (k: number) => (values[k] === '' ? null : Number(values[k]));
      const buckets: ReportBucket[] = [];
      const shared: ReportBucket[] = [];
      const totals = emptyCounters();
      for (let i = 0; i + width <= values.length; i += width) {
        const atMs = Number(values[i]);
        const counters = countersFromText(values, i + 1);
        addCounts(totals, counters);
        const last = buckets.at(-1);
        if (last?.at === atMs) {
          // Another edge's row of the same minute: summed, percentiles from the merged histograms.
          addCounts(last.counters, counters);
          if (shared.at(-1) !== last) shared.push(last);
          continue;
        }
        buckets.push({ at: atMs, counters, percentiles: [orNull(i + n + 1), orNull(i + n + 2), orNull(i + n + 3)] });
      }
      // A bucket several edges wrote: its percentiles from their merged histograms.
      if (shared.length > 0) {
        const merged = await this.histograms(domainId, interval, shared.map((b) => b.at));
        for (const b of shared) b.percentiles = histogramQuantiles(merged.get(b.at) ?? {}, QS);
      }
      totals.origin_ms = await this.rangeHistogram(domainId, interval, from, to);
      return { buckets, totals };
    },

    /** The histograms of given bucket starts, summed over edges. */
    async histograms(domainId: string, interval: 'minute' | 'hour', starts: number[]): Promise<Map<number, Histogram>> {
      const t = interval === 'minute' ? sql.identifier(['domain_traffic_minutes']) : sql.identifier(['domain_traffic_hours']);
      const at = interval === 'minute' ? sql.identifier(['minute']) : sql.identifier(['hour']);
      const rows = await db.any(sql.type(HistRow)`
        select (extract(epoch from ${at}) * 1000)::int8 as at, origin_ms from ${t}
        where domain_id = ${domainId} and ${at} = any(${sql.array(starts.map((x) => new Date(x).toISOString()), 'timestamptz')})`);
      const out = new Map<number, Histogram>();
      for (const r of rows) out.set(r.at, mergeHistograms(out.get(r.at) ?? {}, r.origin_ms));
      return out;
    },

    /** One histogram of [from, to): the hour rows of whole hours inside it, minute rows for the rest. */
    async rangeHistogram(domainId: string, interval: 'minute' | 'hour', from: Date, to: Date): Promise<Histogram> {
      const HOUR = 3_600_000;
      const h0 = interval === 'hour' ? from.getTime() : Math.ceil(from.getTime() / HOUR) * HOUR;
      const h1 = interval === 'hour' ? to.getTime() : Math.floor(to.getTime() / HOUR) * HOUR;
      const parts = h1 > h0
        ? [sql.fragment`select origin_ms from domain_traffic_hours where domain_id = ${domainId} and hour >= ${new Date(h0).toISOString()} and hour < ${new Date(h1).toISOString()}`,
          sql.fragment`select origin_ms from domain_traffic_minutes where domain_id = ${domainId} and ((minute >= ${from.toISOString()} and minute < ${new Date(h0).toISOString()}) or (minute >= ${new Date(h1).toISOString()} and minute < ${to.toISOString()}))`]
        : [sql.fragment`select origin_ms from domain_traffic_minutes where domain_id = ${domainId} and minute >= ${from.toISOString()} and minute < ${to.toISOString()}`];
      const rows = await db.any(sql.type(OnlyHist)`${sql.join(parts, sql.fragment` union all `)}`);
      const h: Histogram = {};
      for (const r of rows) mergeHistograms(h, r.origin_ms);
      return h;
    },

    /** The organization's totals over [from, to) (minute rows for ranges up to 48 h, else hours). */
    async organizationTotals(organizationId: string, interval: Interval, from: Date, to: Date): Promise<TrafficCounters> {
      const t = interval === 'minute' ? sql.identifier(['domain_traffic_minutes']) : sql.identifier(['domain_traffic_hours']);
      const at = interval === 'minute' ? sql.identifier(['minute']) : sql.identifier(['hour']);
      const rows = await db.any(sql.type(Bucket)`
        select 0::int8 as at, ${sql.join(COUNTER_FIELDS.map((f) => sql.fragment`coalesce(sum(${col(f)}), 0)::int8 as ${col(f)}`), sql.fragment`, `)}, hg_hist_sum(origin_ms) as origin_ms
        from ${t} where organization_id = ${organizationId} and ${at} >= ${from.toISOString()} and ${at} < ${to.toISOString()}`);
      return rows[0] ? mergeCounters(emptyCounters(), toCounters(rows[0])) : emptyCounters();
    },

    /** The organization's hostnames by `sort`, descending (ties by domain id), a page from `offset`. */
    async topHostnames(organizationId: string, interval: Interval, from: Date, to: Date, sort: TopSort, limit: number, offset: number): Promise<TopHostnameRow[]> {
      const t = interval === 'minute' ? sql.identifier(['domain_traffic_minutes']) : sql.identifier(['domain_traffic_hours']);
      const at = interval === 'minute' ? sql.identifier(['minute']) : sql.identifier(['hour']);
      const order = sql.identifier([sort]);
      return [...await db.any(sql.type(Top)`
        select s.*, d.hostname from (
          select domain_id, sum(requests)::int8 as requests, sum(status_4xx + status_5xx)::int8 as errors, sum(bytes_in + bytes_out)::int8 as bytes,
            sum(status_4xx)::int8 as status_4xx, sum(status_5xx)::int8 as status_5xx, sum(bytes_in)::int8 as bytes_in, sum(bytes_out)::int8 as bytes_out
          from ${t} where organization_id = ${organizationId} and ${at} >= ${from.toISOString()} and ${at} < ${to.toISOString()}
          group by domain_id
        ) s join domains d on d.id = s.domain_id
        order by s.${order} desc, s.domain_id limit ${limit} offset ${offset}`)];
    },

    /** Per-edge tallies over [from, to): lines, counted lines and stick-table requests. */
    async edgeTotals(from: Date, to: Date): Promise<Static<typeof EdgeTotalsRow>[]> {
      return [...await db.any(sql.type(EdgeTotals)`
        select edge_id, sum(lines)::int8 as lines, sum(counted_lines)::int8 as counted_lines, sum(counted_requests)::int8 as counted_requests,
          sum(unattributed)::int8 as unattributed, sum(malformed)::int8 as malformed
        from edge_traffic_minutes where minute >= ${from.toISOString()} and minute < ${to.toISOString()} group by edge_id order by edge_id`)];
    },

    /** Per edge over [from, to): requests, 5xx and bytes of its domains' rows (Prometheus gauges). */
    async edgeRequests(from: Date, to: Date): Promise<Static<typeof EdgeRequestsRow>[]> {
      return [...await db.any(sql.type(EdgeRequests)`
        select edge_id, sum(requests)::int8 as requests, sum(status_5xx)::int8 as status_5xx, sum(bytes_in)::int8 as bytes_in, sum(bytes_out)::int8 as bytes_out
        from domain_traffic_minutes where minute >= ${from.toISOString()} and minute < ${to.toISOString()} group by edge_id order by edge_id`)];
    },

    /** Minute rows (domains' and edges') older than 48 h, at most `limit` per table. */
    async purgeMinutes(limit: number): Promise<number> {
      const a = await db.query(sql.unsafe`
        delete from domain_traffic_minutes where ctid = any(array(
          select ctid from domain_traffic_minutes where minute < hg_now() - make_interval(hours => ${TRAFFIC_MINUTES_KEPT_HOURS}) order by minute limit ${limit}))`);
      const b = await db.query(sql.unsafe`
        delete from edge_traffic_minutes where ctid = any(array(
          select ctid from edge_traffic_minutes where minute < hg_now() - make_interval(hours => ${TRAFFIC_MINUTES_KEPT_HOURS}) order by minute limit ${limit}))`);
      return Math.max(a.rowCount, b.rowCount);
    },

    /** Hour rows older than 400 days, at most `limit`. */
    async purgeHours(limit: number): Promise<number> {
      const r = await db.query(sql.unsafe`
        delete from domain_traffic_hours where ctid = any(array(
          select ctid from domain_traffic_hours where hour < hg_now() - make_interval(days => ${TRAFFIC_HOURS_KEPT_DAYS}) order by hour limit ${limit}))`);
      return r.rowCount;
    },
  };
}
export type TrafficRepository = ReturnType<typeof trafficRepository>;

function toCounters(r: BucketRow): TrafficCounters {
  const c = emptyCounters();
  for (const f of COUNTER_FIELDS) c[f] = r[f];
  c.origin_ms = r.origin_ms;
  return c;
}

/** Rows ordered by time → one bucket per `width`-aligned start, edges and sub-buckets summed. */
function sumByBucket(rows: readonly BucketRow[], width: number): { at: number; counters: TrafficCounters }[] {
  const out: { at: number; counters: TrafficCounters }[] = [];
  for (const r of rows) {
    const at = Math.floor(r.at / width) * width;
    const last = out[out.length - 1];
    if (last && last.at === at) mergeCounters(last.counters, toCounters(r));
    else out.push({ at, counters: toCounters(r) });
  }
  return out;
}
