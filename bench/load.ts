// Load generator for bench/api.ts: one autocannon run per worker thread, so the load generator
// never shares an event loop with the servers it measures (they run on the main thread).
// Request bodies and Idempotency-Keys come from a counter in `setupRequest`, so every request is
// unique. Latencies are taken from autocannon's `response` events (sub-millisecond; its own
// histogram rounds to whole milliseconds) and, like autocannon's, count 2xx answers only.
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { percentile } from './support/stats.ts';

export type LoadBody =
  | { kind: 'create-domain'; destinationId: string; prefix: string }
  | { kind: 'bare'; prefix: string };

export interface LoadSpec {
  /** http://127.0.0.1:port */
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: LoadBody;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
}

export interface LoadResult {
  seconds: number;
  completed: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  rps: number;
  p50: number;
  p99: number;
  statusCodes: Record<string, number>;
}

// autocannon ships no types; this is the part of its programmatic API used here.
interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: unknown) => AutocannonRequest;
}
// Inside a worker thread autocannon skips its aggregation step (it assumes it is one of its own
// workers) and resolves with the raw per-run counters: totalCompletedRequests instead of requests.
interface AutocannonResult {
  duration: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  totalCompletedRequests?: number;
  requests?: { total: number };
  statusCodeStats: Record<string, { count: number }>;
}
type AutocannonInstance = EventEmitter & PromiseLike<AutocannonResult>;
type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;

function bodyFactory(body: LoadBody): (n: number) => { json: string; idempotencyKey: string } {
  switch (body.kind) {
    case 'create-domain':
      return (n) => ({
        json: JSON.stringify({ hostname: `shop-${n}.${body.prefix}.example.com`, destination_id: body.destinationId }),
        idempotencyKey: `${body.prefix}-${n}`,
      });
    case 'bare':
      return (n) => ({ json: JSON.stringify({ hostname: `shop-${n}.${body.prefix}.example.com` }), idempotencyKey: `${body.prefix}-${n}` });
  }
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  let counter = 0;
  const request: AutocannonRequest = { method: spec.method, path: spec.path, headers: spec.headers };
  if (spec.body) {
    const make = bodyFactory(spec.body);
    // Called for every request (a request with setupRequest is rebuilt each time it is sent).
    request.setupRequest = (req) => {
      const { json, idempotencyKey } = make(++counter);
      return { ...req, body: json, headers: { ...req.headers, 'content-type': 'application/json', 'idempotency-key': idempotencyKey } };
    };
  }
  const instance = autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.durationSeconds,
    ...(spec.warmupSeconds > 0 ? { warmup: { duration: spec.warmupSeconds } } : {}),
    requests: [request],
    timeout: 30,
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  });
  // Grows as needed; a float per answered request.
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  // With a warm-up, the returned instance is the measured run's tracker: warm-up answers do not land here.
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode < 200 || statusCode > 299) return;
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[n++] = responseTime;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, n).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  const completed = result.totalCompletedRequests ?? result.requests?.total ?? Number.NaN;
  return {
    seconds: result.duration,
    completed,
    ok: n,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    rps: completed / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    statusCodes,
  };
}

if (!isMainThread && parentPort && (workerData as { loadSpec?: LoadSpec } | null)?.loadSpec) {
  const port = parentPort;
  runLoad((workerData as { loadSpec: LoadSpec }).loadSpec).then(
    (result) => port.postMessage({ ok: true, result }),
    (error: unknown) => port.postMessage({ ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
}
