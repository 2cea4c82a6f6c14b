// Metrics (issue 14): the API counts requests by route template, the worker's backlog gauges read
// the real database, and the Grafana dashboard only asks for metrics that exist.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import client from 'prom-client';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { backlogGaugesRepository } from '../db/repositories/backlog-gauges.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import '../metrics/http.ts';
import '../metrics/dns-checker.ts';
import { sql } from '../db/pool.ts';
import { registerBacklogGauges } from '../metrics/worker.ts';
import { registerEdgeTrafficGauges } from '../metrics/edge-traffic.ts';
import { createTestApp, type TestApp } from './support/app.ts';

describe('metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    registerBacklogGauges(backlogGaugesRepository(t.database.db).read);
    registerEdgeTrafficGauges(async () => ({
      edges: [{ edge_id: 'edge-m', lines: 90, counted_lines: 90, counted_requests: 100 }],
      requests: [{ edge_id: 'edge-m', requests: 90, status_5xx: 3, bytes_in: 1000, bytes_out: 5000 }],
    }));
  });

  it('per-edge traffic totals and completeness (issue 24)', async () => {
    const text = await client.register.metrics();
    expect(text).toMatch(/^hostgate_edge_traffic_requests\{edge="edge-m"\} 90$/m);
    expect(text).toMatch(/^hostgate_edge_traffic_lost_lines\{edge="edge-m"\} 10$/m);
    expect(text).toMatch(/^hostgate_edge_traffic_completeness\{edge="edge-m"\} 0.9$/m);
  });
  afterAll(async () => { await t?.close(); });

  it('API requests are counted by route template (never the raw URL), method and status', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    await t.app.inject({ method: 'GET', url: '/v1/domains/dom_secret123', headers: { authorization: 'Bearer nope' } });
    const text = await client.register.metrics();
    expect(text).toMatch(/hostgate_http_requests_total\{route="\/healthz",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/hostgate_http_requests_total\{route="\/v1\/domains\/:id",method="GET",status="401"\} 1/);
    expect(text).not.toContain('dom_secret123');
    expect(text).toMatch(/hostgate_http_request_duration_seconds_count\{route="\/healthz",method="GET"\} [1-9]/);
  });

  it('backlog gauges come from Postgres at scrape time', async () => {
    const org = (await organizationsRepository(t.database.db).create({ name: 'Metrics' })).id;
    const dst = (await destinationsRepository(t.database.db).create({ organizationId: org, url: 'https://app.example.com', host: 'app.example.com', port: 443 })).id;
    const { domain: a } = await domainsRepository(t.database.db).create({ organizationId: org, destinationId: dst, hostname: 'a.metrics.test', isApex: false });
    await domainsRepository(t.database.db).create({ organizationId: org, destinationId: dst, hostname: 'b.metrics.test', isApex: false });
    // No DNS checker runs here: both first checks are due, one of them for 90 s.
    await t.database.db.query(sql.unsafe`update dns_check_schedule set next_check_at = hg_now() - interval '90 seconds' where domain_id = ${a.id}`);
    // The dispatcher of the test app is not running: both start rows are still pending.
    const text = await client.register.metrics();
    expect(text).toMatch(/^hostgate_outbox_pending 2$/m);
    expect(text).toMatch(/^hostgate_domains\{status="pending_dns"\} 2$/m);
    expect(Number(/^hostgate_outbox_lag_seconds ([\d.]+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^hostgate_webhook_deliveries_pending 0$/m);
    expect(text).toMatch(/^hostgate_dns_checks_due 2$/m);
    const lag = Number(/^hostgate_dns_checks_lag_seconds ([\d.]+)$/m.exec(text)?.[1]);
    expect(lag).toBeGreaterThanOrEqual(90);
    expect(lag).toBeLessThan(120);
  });

  it('the Grafana dashboard asks only for metrics Hostgate or the Temporal SDK exports', () => {
    const dashboard = JSON.parse(readFileSync('docs/grafana/hostgate.json', 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    const ours = new Set(client.register.getMetricsAsArray().map((m) => m.name));
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(hostgate_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''))));
    expect(used.size).toBeGreaterThan(8);
    for (const name of used) expect([name, ours.has(name)]).toEqual([name, true]);
    // The SDK's names as its Prometheus exporter writes them (seen on a live worker, docs/operations.md).
    const sdk = new Set(['temporal_worker_task_slots_used', 'temporal_worker_task_slots_available', 'temporal_workflow_task_schedule_to_start_latency', 'temporal_activity_schedule_to_start_latency', 'temporal_workflow_task_execution_latency']);
    for (const name of new Set(exprs.flatMap((e) => [...e.matchAll(/\b(temporal_[a-z_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''))))) expect([name, sdk.has(name)]).toEqual([name, true]);
  });
});
