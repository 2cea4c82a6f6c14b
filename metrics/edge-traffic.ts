// Per-edge traffic totals of the last hour, read from the analytics rows at scrape time (the
// worker serves them: edges have no metrics endpoint of their own). Completeness = lines of
// requests the stick table counted ÷ the table's count (docs/analytics.md); below 1, lines were lost.
import client from 'prom-client';

export interface EdgeTrafficTotals {
  edges: { edge_id: string; lines: number; counted_lines: number; counted_requests: number }[];
  requests: { edge_id: string; requests: number; status_5xx: number; bytes_in: number; bytes_out: number }[];
}

export function registerEdgeTrafficGauges(read: () => Promise<EdgeTrafficTotals>): void {
  let latest: Promise<EdgeTrafficTotals | null> | null = null;
  // One read per scrape, shared by every gauge below.
  const once = () => {
    latest ??= read().catch(() => null).finally(() => { latest = null; });
    return latest;
  };
  const gauge = (name: string, help: string, pick: (t: EdgeTrafficTotals) => [string, number][]) => new client.Gauge({
    name, help, labelNames: ['edge'] as const,
    async collect() {
      const v = await once();
      if (!v) return;
      this.reset();
      for (const [edge, n] of pick(v)) this.set({ edge }, n);
    },
  });
  gauge('hostgate_edge_traffic_requests', 'Requests served by each edge in the last hour (analytics log lines attributed to a domain).', (t) => t.requests.map((r) => [r.edge_id, r.requests]));
  gauge('hostgate_edge_traffic_server_errors', '5xx answers of each edge in the last hour.', (t) => t.requests.map((r) => [r.edge_id, r.status_5xx]));
  gauge('hostgate_edge_traffic_bytes_out', 'HTTP bytes each edge sent in the last hour (analytics; billing uses the stick-table counters).', (t) => t.requests.map((r) => [r.edge_id, r.bytes_out]));
  gauge('hostgate_edge_traffic_bytes_in', 'HTTP bytes each edge received in the last hour.', (t) => t.requests.map((r) => [r.edge_id, r.bytes_in]));
  gauge('hostgate_edge_traffic_lines', 'Request log lines each edge agent received in the last hour.', (t) => t.edges.map((e) => [e.edge_id, e.lines]));
  gauge('hostgate_edge_traffic_lost_lines', 'Requests the stick table counted without a log line in the last hour (lost lines).', (t) => t.edges.map((e) => [e.edge_id, Math.max(0, e.counted_requests - e.counted_lines)]));
  gauge('hostgate_edge_traffic_completeness', 'Lines received ÷ requests counted by the stick table over the last hour (1 when none).', (t) => t.edges.map((e) => [e.edge_id, e.counted_requests > 0 ? Math.min(1, e.counted_lines / e.counted_requests) : 1]));
}
