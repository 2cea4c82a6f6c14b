// Traffic analytics, pure: one HAProxy log line (the edge's compact log-format) → a parsed request;
// requests → per-domain, per-minute counters; origin times as a mergeable histogram of fixed
// logarithmic buckets, so percentiles survive every sum (edges, minutes → hours → days). No I/O.

/**
 * Bucket growth factor. Bucket 0 holds 0 ms; bucket i ≥ 1 holds [γ^(i-1), γ^i) ms. A value read
 * back as the bucket's middle is within (√γ − 1) ≈ 2.5 % of every value in it — the percentile
 * error bound the API documents. Fixed forever: stored histograms of every age are summed as-is.
 */
export const HISTOGRAM_GAMMA = 1.05;
/** Origin times above this (ms) share the last bucket (HAProxy's server timeout is 60 s). */
export const HISTOGRAM_MAX_MS = 3_600_000;
const LOG_GAMMA = Math.log(HISTOGRAM_GAMMA);
export const HISTOGRAM_LAST_BUCKET = 1 + Math.floor(Math.log(HISTOGRAM_MAX_MS) / LOG_GAMMA);

/** Sparse histogram: bucket index (as text, JSON object keys) → count. */
export type Histogram = Record<string, number>;

export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(HISTOGRAM_LAST_BUCKET, 1 + Math.floor(Math.log(ms) / LOG_GAMMA + 1e-9));
}

/** The value a bucket stands for: its only whole millisecond when it holds one, else its geometric middle. */
export function bucketValue(index: number): number {
  if (index <= 0) return 0;
  const lo = HISTOGRAM_GAMMA ** (index - 1);
  const hi = HISTOGRAM_GAMMA ** index;
  const first = Math.ceil(lo - 1e-9);
  if (first < hi && first + 1 >= hi) return first;
  return Math.sqrt(lo * hi);
}

export function addToHistogram(h: Histogram, ms: number, n = 1): void {
  const k = String(bucketOf(ms));
  h[k] = (h[k] ?? 0) + n;
}

export function mergeHistograms(into: Histogram, from: Histogram): Histogram {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  return into;
}

/**
 * Quantiles (each 0 < q ≤ 1, ascending) of a histogram in ms, nearest rank; null when it is empty.
 * One pass over the buckets sorted once: a series of 1,440 minutes is read in a few ms.
 */
export function histogramQuantiles(h: Histogram, qs: readonly number[]): (number | null)[] {
  const keys = Object.keys(h);
  const idx: number[] = [];
  let total = 0;
  for (const k of keys) { const v = h[k]!; if (v > 0) { idx.push(Number(k)); total += v; } }
  if (total === 0) return qs.map(() => null);
  idx.sort((a, b) => a - b);
  const out: (number | null)[] = [];
  let seen = 0;
  let i = 0;
  for (const q of qs) {
    const rank = Math.max(1, Math.ceil(q * total));
    while (i < idx.length - 1 && seen + h[String(idx[i])]! < rank) { seen += h[String(idx[i])]!; i++; }
    out.push(Math.round(bucketValue(idx[i]!) * 10) / 10);
  }
  return out;
}

/** The q-quantile (0 < q ≤ 1) of a histogram in ms, null when it is empty (nearest rank). */
export function histogramQuantile(h: Histogram, q: number): number | null {
  return histogramQuantiles(h, [q])[0]!;
}

/**
 * The log-format the edge's frontend sends to the agent (edge/haproxy.cfg.template). Space-
 * separated; the host last, so whatever a client put in Host cannot shift the other fields.
 * `counted` is "1" when the request passed the bandwidth stick table (the completeness base).
 */
export const TRAFFIC_LOG_FORMAT = 'hg1 %ST %U %B %Tr %Ta %HV %sslv %ts %[var(txn.counted)] %[var(txn.route),field(3,|)] %[var(txn.host)]';

export interface TrafficLine {
  /** -1: no answer was sent (client gone before the status line). */
  status: number;
  bytesIn: number;
  bytesOut: number;
  /** ms until the origin's response headers; -1 when the origin gave none (edge-made answer). */
  originMs: number;
  totalMs: number;
  httpVersion: string;
  tlsVersion: string;
  termination: string;
  counted: boolean;
  domainId: string | null;
  host: string;
}

/** A whole decimal integer (optional minus) of line[from, to), else NaN — no substring, no regex. */
function intAt(line: string, from: number, to: number): number {
  let i = from;
  const negative = line.charCodeAt(i) === 45; // '-'
  if (negative) i++;
  if (i >= to) return NaN;
  let n = 0;
  for (; i < to; i++) {
    const d = line.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

const isTrailingSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * One line → a request, or null when it is not ours (another format, truncated, garbled). Read
 * by index (eleven spaces, then the host): the agent parses every request the edge serves, and
 * this is a third of its CPU per line; `split` and a regex per number cost twice as much.
 */
export function parseTrafficLine(line: string): TrafficLine | null {
  let end = line.length;
  while (end > 0 && isTrailingSpace(line.charCodeAt(end - 1))) end--;
  if (!line.startsWith('hg1 ')) return null;
  // Starts of fields 1..11 (field 11, the host, runs to the end and may hold spaces).
  const at = [0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let k = 2; k <= 11; k++) {
    const sp = line.indexOf(' ', at[k - 1]!);
    if (sp === -1 || sp >= end) return null;
    at[k] = sp + 1;
  }
  const field = (k: number) => line.slice(at[k]!, at[k + 1]! - 1);
  const status = intAt(line, at[1]!, at[2]! - 1);
  const bytesIn = intAt(line, at[2]!, at[3]! - 1);
  const bytesOut = intAt(line, at[3]!, at[4]! - 1);
  const originMs = intAt(line, at[4]!, at[5]! - 1);
  const totalMs = intAt(line, at[5]!, at[6]! - 1);
  if (Number.isNaN(status + bytesIn + bytesOut + originMs + totalMs)) return null;
  const domain = field(10);
  return {
    status, bytesIn, bytesOut, originMs, totalMs,
    httpVersion: field(6), tlsVersion: field(7), termination: field(8),
    counted: at[10]! - at[9]! === 2 && line.charCodeAt(at[9]!) === 49, // "1"
    domainId: domain === '-' || domain === '' ? null : domain,
    host: line.slice(at[11]!, end),
  };
}

/** What one domain's traffic in one minute on one edge adds up to (also the stored row). */
export interface TrafficCounters {
  requests: number;
  status_2xx: number;
  status_3xx: number;
  status_4xx: number;
  status_5xx: number;
  /** Answers the edge made itself (no origin answer: 421/502/503/508 pages, timeouts); also in their class. */
  edge_answers: number;
  /** Requests that ended without any answer (client gone). */
  no_answer: number;
  bytes_in: number;
  bytes_out: number;
  http1: number;
  http2: number;
  tls12: number;
  tls13: number;
  /** Sum of total times (ms), for the mean. */
  total_ms_sum: number;
  origin_ms: Histogram;
}

export const COUNTER_FIELDS = ['requests', 'status_2xx', 'status_3xx', 'status_4xx', 'status_5xx', 'edge_answers', 'no_answer', 'bytes_in', 'bytes_out',
  'http1', 'http2', 'tls12', 'tls13', 'total_ms_sum'] as const;
export type CounterField = (typeof COUNTER_FIELDS)[number];

export function emptyCounters(): TrafficCounters {
  return { requests: 0, status_2xx: 0, status_3xx: 0, status_4xx: 0, status_5xx: 0, edge_answers: 0, no_answer: 0, bytes_in: 0, bytes_out: 0, http1: 0, http2: 0, tls12: 0, tls13: 0, total_ms_sum: 0, origin_ms: {} };
}

export function addLine(c: TrafficCounters, l: TrafficLine): void {
  c.requests++;
  const cls = Math.floor(l.status / 100);
  if (cls === 2) c.status_2xx++;
  else if (cls === 3) c.status_3xx++;
  else if (cls === 4) c.status_4xx++;
  else if (cls === 5) c.status_5xx++;
  if (l.status < 100) c.no_answer++;
  else if (l.originMs < 0) c.edge_answers++;
  c.bytes_in += Math.max(0, l.bytesIn);
  c.bytes_out += Math.max(0, l.bytesOut);
  if (l.httpVersion === 'HTTP/2.0') c.http2++;
  else if (l.httpVersion.startsWith('HTTP/1')) c.http1++;
  if (l.tlsVersion === 'TLSv1.3') c.tls13++;
  else if (l.tlsVersion === 'TLSv1.2') c.tls12++;
  c.total_ms_sum += Math.max(0, l.totalMs);
  if (l.originMs >= 0) addToHistogram(c.origin_ms, l.originMs);
}

/**
 * Counters from `values` (numbers as text) at `at`, in COUNTER_FIELDS' order, with an empty
 * histogram. Field by field: a store keyed by COUNTER_FIELDS[k] per field was most of a 24 h
 * read's time in JavaScript (1,440 buckets; docs/analytics.md, "Reading fast").
 */
export function countersFromText(v: readonly string[], at: number): TrafficCounters {
  return {
    requests: Number(v[at]), status_2xx: Number(v[at + 1]), status_3xx: Number(v[at + 2]), status_4xx: Number(v[at + 3]), status_5xx: Number(v[at + 4]),
    edge_answers: Number(v[at + 5]), no_answer: Number(v[at + 6]), bytes_in: Number(v[at + 7]), bytes_out: Number(v[at + 8]),
    http1: Number(v[at + 9]), http2: Number(v[at + 10]), tls12: Number(v[at + 11]), tls13: Number(v[at + 12]), total_ms_sum: Number(v[at + 13]), origin_ms: {},
  };
}

/** Adds `from`'s counts to `into`'s (not the histograms), field by field as above. */
export function addCounts(into: TrafficCounters, from: TrafficCounters): void {
  into.requests += from.requests; into.status_2xx += from.status_2xx; into.status_3xx += from.status_3xx; into.status_4xx += from.status_4xx; into.status_5xx += from.status_5xx;
  into.edge_answers += from.edge_answers; into.no_answer += from.no_answer; into.bytes_in += from.bytes_in; into.bytes_out += from.bytes_out;
  into.http1 += from.http1; into.http2 += from.http2; into.tls12 += from.tls12; into.tls13 += from.tls13; into.total_ms_sum += from.total_ms_sum;
}

export function mergeCounters(into: TrafficCounters, from: TrafficCounters): TrafficCounters {
  addCounts(into, from);
  mergeHistograms(into.origin_ms, from.origin_ms);
  return into;
}

export const MINUTE_MS = 60_000;
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/**
 * The agent's open buckets: domain → minute → counters, plus the edge's own tallies (every line,
 * the counted ones for completeness, lines no domain owns). `take()` hands them over and starts
 * afresh; `putBack()` returns a batch whose write failed, merged with what came since.
 */
export class TrafficAggregator {
  private buckets = new Map<string, TrafficCounters>();
  lines = 0;
  countedLines = 0;
  unattributed = 0;
  malformed = 0;

  add(line: TrafficLine, now: number): void {
    this.lines++;
    if (line.counted) this.countedLines++;
    if (!line.domainId) { this.unattributed++; return; }
    const key = `${line.domainId} ${minuteOf(now)}`;
    let c = this.buckets.get(key);
    if (!c) { c = emptyCounters(); this.buckets.set(key, c); }
    addLine(c, line);
  }

  /** Feeds one line (a trailing newline is allowed). */
  addRaw(text: string, now: number): void {
    const line = parseTrafficLine(text);
    if (line) this.add(line, now);
    else this.malformed++;
  }

  get size(): number { return this.buckets.size; }

  take(): TrafficBatch {
    const rows: TrafficBatch['rows'] = [];
    for (const [key, counters] of this.buckets) {
      const [domainId, minute] = key.split(' ');
      rows.push({ domainId: domainId!, minute: Number(minute), counters });
    }
    const batch: TrafficBatch = { rows, lines: this.lines, countedLines: this.countedLines, unattributed: this.unattributed, malformed: this.malformed };
    this.buckets = new Map();
    this.lines = 0; this.countedLines = 0; this.unattributed = 0; this.malformed = 0;
    return batch;
  }

  putBack(batch: TrafficBatch): void {
    for (const r of batch.rows) {
      const key = `${r.domainId} ${r.minute}`;
      const c = this.buckets.get(key);
      if (c) mergeCounters(c, r.counters);
      else this.buckets.set(key, r.counters);
    }
    this.lines += batch.lines; this.countedLines += batch.countedLines;
    this.unattributed += batch.unattributed; this.malformed += batch.malformed;
  }
}

export interface TrafficBatch {
  rows: { domainId: string; minute: number; counters: TrafficCounters }[];
  lines: number;
  countedLines: number;
  unattributed: number;
  malformed: number;
}

/** Percentiles and rates of a bucket as the API shows them. */
export function summarize(c: TrafficCounters) {
  const [p50, p95, p99] = histogramQuantiles(c.origin_ms, [0.5, 0.95, 0.99]);
  return {
    origin_ms_p50: p50 ?? null,
    origin_ms_p95: p95 ?? null,
    origin_ms_p99: p99 ?? null,
    total_ms_mean: c.requests > 0 ? Math.round((c.total_ms_sum / c.requests) * 10) / 10 : null,
  };
}

/** Eight-level bar chart of a series (the CLI's one-line sparkline); all zero → flat. */
export function sparkline(values: readonly number[]): string {
  const bars = '▁▂▃▄▅▆▇█';
  const max = Math.max(0, ...values);
  return values.map((v) => (max === 0 ? bars[0] : bars[Math.min(7, Math.floor((v / max) * 7.999))])).join('');
}
