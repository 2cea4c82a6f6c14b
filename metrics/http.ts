// HTTP metrics of the API and the edge listener (prom-client's default registry of the process
// that imports this): requests by route template, method and status class, and their latency.
// Route templates (`/v1/domains/:id`), never raw URLs: ids, hostnames and tokens stay out of
// the labels, and their number stays bounded.
import client from 'prom-client';

export const httpRequests = new client.Counter({
  name: 'hostgate_http_requests_total',
  help: 'HTTP requests answered, by route template (unmatched: no route), method and status code.',
  labelNames: ['route', 'method', 'status'] as const,
});

export const httpRequestSeconds = new client.Histogram({
  name: 'hostgate_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by route template and method.',
  labelNames: ['route', 'method'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Methods outside the usual set are counted as OTHER (a client may send anything). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY']);

export function observeHttpRequest(route: string, method: string, status: number, seconds: number): void {
  const m = METHODS.has(method) ? method : 'OTHER';
  httpRequests.inc({ route, method: m, status: String(status) });
  httpRequestSeconds.observe({ route, method: m }, seconds);
}

/**
 * Failed credential lookups (`failed`) and requests refused because their address had spent its
 * failed-authentication budget (`refused`, api/auth-failure-limit.ts). Per-address detail is in
 * the API's warn log, never in labels.
 */
export const authFailures = new client.Counter({
  name: 'hostgate_api_auth_failures_total',
  help: 'Failed API key / widget token lookups (outcome=failed) and requests refused by the per-address failed-authentication budget (outcome=refused).',
  labelNames: ['outcome'] as const,
});

/**
 * How the API found the key of an authenticated request (api/api-key-cache.ts): in memory (`hit`),
 * looked up while caching (`miss`), or looked up with the cache off (`off`: its revocation feed is
 * down, or HOSTGATE_API_KEY_CACHE_TTL_MS=0). Unknown keys count as lookups too; they are never cached.
 */
export const apiKeyCacheLookups = new client.Counter({
  name: 'hostgate_api_key_cache_total',
  help: 'API key authentications by how the key was found: hit (memory), miss (looked up, cache on), off (looked up, cache off).',
  labelNames: ['outcome'] as const,
});

/** hostgate_api_key_cache_total's counts so far in this process (benchmarks and tests read them). */
export async function apiKeyCacheCounts(): Promise<{ hit: number; miss: number; off: number }> {
  const metric = await apiKeyCacheLookups.get();
  const of = (outcome: string) => metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
  return { hit: of('hit'), miss: of('miss'), off: of('off') };
}
