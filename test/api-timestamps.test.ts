// One timestamp format on every read (issue 25): RFC 3339, UTC, with milliseconds, `…Z`. Timestamps
// kept inside JSON columns used to leave as Postgres renders them (`certificate.updated_at` read
// `2026-11-26T15:15:40.59+00:00` beside `2026-11-26T15:04:27.666Z`). Every GET operation of the
// served document is read on data that fills every timestamp field (domains with their tracks,
// destinations, endpoints, deliveries, attempts, usage, invoices, the widget's reads), and every
// value the document calls a date-time — and every string that looks like a timestamp — is checked.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createBillingActivities } from '../activities/billing.ts';
import { createBillingProvider } from '../billing/create-provider.ts';
import { sql } from '../db/pool.ts';
import { domainMovesRepository } from '../db/repositories/domain-moves.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { trafficRepository } from '../db/repositories/traffic.ts';
import { TrafficAggregator } from '../model/analytics-counters.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { resolveRefs } from './support/openapi-refs.ts';

type Json = any;
const RFC3339_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LOOKS_LIKE_A_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/** Walks `value` with its (resolved) schema: every date-time value, by path without array indices. */
function dateTimes(schema: Json, value: unknown, at: string, out: { path: string; value: unknown }[]): void {
  if (value === null || value === undefined || !schema) return;
  const branches: Json[] = schema.anyOf ?? schema.oneOf ?? [schema];
  for (const s of branches) {
    if (s.format === 'date-time' && typeof value === 'string') out.push({ path: at, value });
    if (Array.isArray(value) && s.items) for (const v of value) dateTimes(s.items, v, `${at}[]`, out);
    if (value && typeof value === 'object' && !Array.isArray(value) && s.properties) {
      for (const [k, v] of Object.entries(value)) dateTimes(s.properties[k], v, at ? `${at}.${k}` : k, out);
    }
  }
}

/** Every string in `value` that looks like a time, by path: timestamps the schema does not call so included. */
function timeLikeStrings(value: unknown, at: string, out: { path: string; value: string }[]): void {
  if (typeof value === 'string' && LOOKS_LIKE_A_TIME.test(value)) out.push({ path: at, value });
  else if (Array.isArray(value)) for (const v of value) timeLikeStrings(v, `${at}[]`, out);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) timeLikeStrings(v, at ? `${at}.${k}` : k, out);
}

describe('timestamps on every read', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Zero-downtime moves on: domains carry the ownership and certificate tracks.
    t = await createTestApp({ config: { HOSTGATE_CHALLENGE_ZONE: 'challenges.hostgate.test' } });
  });
  afterAll(async () => { await t?.close(); });

  it('every date-time of every GET answer is RFC 3339 UTC with milliseconds, and every one of them was seen filled', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const db = t.database.db;
    const destination = (await api.post('/v1/destinations', { url: 'https://app.timestamps.example' })).json().data.id as string;
    const endpoint = (await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/timestamps' })).json().data.id as string;
    expect((await api.post(`/v1/webhook-endpoints/${endpoint}/rotate-secret`)).statusCode).toBe(200);

    // A domain mid-move: its tracks and verification as the workers store them, timestamps
    // rendered by Postgres inside the JSON (`…40.59+00:00`), the certificate track by markIssued.
    const moving = (await api.post('/v1/domains', { hostname: 'shop.timestamps.example', destination_id: destination })).json().data.id as string;
    expect((await api.post(`/v1/domains/${moving}/verify`)).statusCode).toBe(202);
    await db.query(sql.unsafe`update domains set
      verification = jsonb_build_object('checked_at', hg_now() - interval '1.59 seconds', 'found', '[]'::jsonb, 'problem', null, 'dns_broken', false),
      ownership = jsonb_build_object('status', 'verified', 'checked_at', hg_now() - interval '2.5 seconds', 'verified_at', hg_now() - interval '2.51 seconds', 'problem', null)
      where id = ${moving}`);
    await domainMovesRepository(db).markIssued(moving, 'crt_timestamps');
    const stored = await db.oneFirst(sql.unsafe`select certificate_track->>'updated_at' from domains where id = ${moving}`) as string;
    // The stored form is Postgres's, not the API's: the presenter is what makes it one format.
    expect(stored).not.toMatch(RFC3339_UTC_MS);

    // Another one active (the certificate track of a domain served by the edge).
    const active = (await api.post('/v1/domains', { hostname: 'www.timestamps.example', destination_id: destination })).json().data.id as string;
    const domains = domainsRepository(db);
    expect((await domains.transition(active, 'dns_verified', 'DNS verified')).changed).toBe(true);
    await domainMovesRepository(db).markIssued(active, 'crt_timestamps_active');
    expect((await domains.transition(active, 'certificate_deployed', 'certificate deployed')).changed).toBe(true);

    // Traffic of the active domain, as an edge flushes it (its analytics buckets carry timestamps).
    const traffic = new TrafficAggregator();
    traffic.add({ status: 200, bytesIn: 100, bytesOut: 1000, originMs: 20, totalMs: 25, httpVersion: 'HTTP/2.0', tlsVersion: 'TLSv1.3', termination: '----', counted: true, domainId: active, host: 'www.timestamps.example' }, Date.now() - 120_000);
    await db.query(sql.unsafe`insert into edge_nodes (id) values ('edge-timestamps')`);
    await trafficRepository(db).flush('edge-timestamps', traffic.take(), null);

    // Deliveries to the endpoint, one with an attempt recorded and its next one scheduled.
    const deliveries = webhookDeliveriesRepository(db);
    await deliveries.fanOut(100);
    const delivery = (await api.get(`/v1/webhook-deliveries?endpoint_id=${endpoint}`)).json().data[0].id as string;
    await deliveries.recordAttempt({ deliveryId: delivery, attempt: 1, startedAt: new Date(Date.now() - 1234).toISOString(), durationMs: 12, responseCode: 500, responseBody: 'boom', error: null, status: 'pending', lastError: 'the endpoint answered 500', nextDelayMs: 5_000 });

    // A closed period's invoice.
    const usage = (await api.get('/v1/usage')).json().data;
    const activities = createBillingActivities({ db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, db) });
    const invoice = (await activities.closeBillingPeriod({ organizationId: o.org.id, periodStart: usage.period_start, periodEnd: usage.period_end, plan: usage.plan })).invoiceId;

    // The widget: a session (its answer is read like the rest) and a domain of its customer.
    const origin = 'https://app.example.com';
    const sessionAnswer = await api.post('/v1/widget-sessions', { external_customer_id: 'cus_timestamps', allowed_origins: [origin], destination_id: destination });
    const widgetHeaders = { authorization: `Bearer ${sessionAnswer.json().data.token}`, origin };
    const widgetDomain = await t.app.inject({ method: 'POST', url: '/v1/widget/domains', headers: { ...widgetHeaders, 'content-type': 'application/json', 'idempotency-key': 'w-timestamps' }, payload: JSON.stringify({ hostname: 'w.timestamps.example' }) });
    expect(widgetDomain.statusCode).toBe(201);
    const widgetDomainId = widgetDomain.json().data.id as string;
    await domainMovesRepository(db).markIssued(widgetDomainId, 'crt_timestamps_widget');
    // Stored certificates, so every read's certificate facts (issue 22) are filled and checked too.
    for (const [domainId, certId] of [[active, 'crt_timestamps_active'], [widgetDomainId, 'crt_timestamps_widget'], [moving, 'crt_timestamps']] as const) {
      await db.query(sql.unsafe`insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, key_id)
        values (${certId}, ${domainId}, ${`serial-${certId}`}, 'CN=Test CA', hg_now() - interval '1 day 0.5 seconds', hg_now() + interval '89 days', 'pem', 'k1')`);
    }

    const ids: Record<string, string> = {
      '/v1/destinations/{id}': destination, '/v1/domains/{id}': moving, '/v1/webhook-endpoints/{id}': endpoint,
      '/v1/webhook-deliveries/{id}': delivery, '/v1/webhook-deliveries/{id}/attempts': delivery,
      '/v1/billing/invoices/{id}': invoice, '/v1/widget/domains/{id}': widgetDomainId, '/v1/domains/{id}/analytics': active,
    };
    const answers: { op: string; schema: Json; body: Json }[] = [];
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      const op = item.get;
      if (!op) continue;
      const widget = (op.security ?? []).some((r: Json) => 'widgetToken' in r);
      const url = template.includes('{id}') ? template.replace('{id}', ids[template] ?? 'missing') : template;
      const res = await t.app.inject({ method: 'GET', url, headers: widget ? widgetHeaders : o.auth });
      expect([template, res.statusCode]).toEqual([template, 200]);
      answers.push({ op: `GET ${template}`, schema: op.responses['200'].content['application/json'].schema, body: res.json() });
    }
    // The writes' answers that carry timestamps nobody reads back (the session, the rotated endpoint).
    const rotated = await api.post(`/v1/webhook-endpoints/${endpoint}/rotate-secret`);
    for (const [op, res] of [['POST /v1/widget-sessions', sessionAnswer], ['POST /v1/webhook-endpoints/{id}/rotate-secret', rotated]] as const) {
      const [method, template] = op.split(' ');
      answers.push({ op, schema: doc.paths[template!][method!.toLowerCase()].responses[String(res.statusCode)].content['application/json'].schema, body: res.json() });
    }
    expect(answers.length).toBeGreaterThanOrEqual(15);

    const seen = new Set<string>();
    const wrong: string[] = [];
    for (const { op, schema, body } of answers) {
      const found: { path: string; value: unknown }[] = [];
      dateTimes(resolveRefs(doc, schema), body, '', found);
      for (const f of found) {
        seen.add(`${op} ${f.path}`);
        if (!RFC3339_UTC_MS.test(String(f.value))) wrong.push(`${op} ${f.path} = ${String(f.value)}`);
      }
      const timeLike: { path: string; value: string }[] = [];
      timeLikeStrings(body, '', timeLike);
      for (const f of timeLike) if (!RFC3339_UTC_MS.test(f.value)) wrong.push(`${op} ${f.path} = ${f.value} (not declared date-time)`);
    }
    expect(wrong).toEqual([]);
    // Every timestamp field was filled somewhere, so none of them went unchecked.
    expect([...seen].sort()).toEqual(expect.arrayContaining([
      'GET /v1/domains/{id} data.certificate.updated_at', 'GET /v1/domains/{id} data.ownership.checked_at', 'GET /v1/domains/{id} data.ownership.verified_at',
      'GET /v1/domains/{id} data.verification.checked_at', 'GET /v1/domains/{id} data.verification.verify_requested_at',
      'GET /v1/domains/{id} data.bandwidth.period_start', 'GET /v1/domains/{id} data.created_at', 'GET /v1/domains data[].certificate.updated_at',
      'GET /v1/destinations/{id} data.updated_at', 'GET /v1/destinations data[].created_at',
      'GET /v1/webhook-endpoints/{id} data.created_at', 'GET /v1/webhook-endpoints data[].updated_at',
      'GET /v1/webhook-deliveries/{id} data.next_attempt_at', 'GET /v1/webhook-deliveries data[].created_at', 'GET /v1/webhook-deliveries/{id}/attempts data[].started_at',
      'GET /v1/usage data.period_start', 'GET /v1/usage data.period_end',
      'GET /v1/billing/invoices/{id} data.created_at', 'GET /v1/billing/invoices data[].period_end',
      'GET /v1/domains/{id} data.certificate.not_after', 'GET /v1/domains/{id} data.certificate.renews_at', 'GET /v1/domains data[].certificate.not_before',
      'GET /v1/widget/domains/{id} data.certificate.not_after',
      'GET /v1/widget/domains/{id} data.certificate.updated_at', 'GET /v1/widget/domains data[].created_at',
      'GET /v1/domains/{id}/analytics data.start', 'GET /v1/domains/{id}/analytics data.buckets[].start', 'GET /v1/analytics data.start',
      'POST /v1/widget-sessions data.expires_at', 'POST /v1/webhook-endpoints/{id}/rotate-secret data.previous_secret_expires_at',
    ]));
  });
});
