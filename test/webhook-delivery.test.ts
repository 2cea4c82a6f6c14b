// Webhook deliveries end to end on real services: domain transitions write events, the worker's
// fan-out (LISTEN/NOTIFY) creates deliveries for subscribed endpoints, one Temporal workflow per
// delivery POSTs signed bodies to real HTTP receivers on loopback, and the API shows deliveries
// and attempts and retries them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { createLogger } from '../logging/logger.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { createWebhookFanOut, type WebhookFanOut } from '../temporal/webhook-fan-out.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

const DELIVERY_KEYS = ['attempt_count', 'attempting', 'created_at', 'endpoint_id', 'event', 'event_id', 'id', 'last_error', 'last_response_code', 'next_attempt_at', 'status', 'updated_at'];
const TIMEOUT_MS = 800;

describe('webhook deliveries', () => {
  let t: TestApp;
  let worker: RunningWorker;
  let fanOut: WebhookFanOut;
  let receiver: Receiver;
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true', HOSTGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    fanOut = createWebhookFanOut({ db: t.database.db, dispatcher: t.dispatcher, logger: createLogger('silent', 'test-fan-out'), databaseUrl: t.database.url });
    await fanOut.start();
    receiver = await startReceiver();
  });
  // Delivery workflows of interesting runs, saved as replay fixtures when HG_RECORD_HISTORIES=1
  // (test/replay.test.ts): `webhook-delivery-<name>.json`.
  const recorded: Record<string, string> = {};
  afterAll(async () => {
    if (process.env.HG_RECORD_HISTORIES === '1') {
      const { execFileSync } = await import('node:child_process');
      const { writeFileSync } = await import('node:fs');
      const generation = process.env.HG_RECORD_GENERATION ?? 'local-first';
      for (const [name, id] of Object.entries(recorded)) {
        const json = execFileSync('temporal', ['workflow', 'show', '--address', t.temporal.address, '--workflow-id', `webhook-delivery/${id}`, '--output', 'json'], { encoding: 'utf8' });
        writeFileSync(`test/histories/webhook-delivery-${generation}-${name}.json`, json);
      }
    }
    await fanOut?.stop();
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  /** An organization with an API key and a destination. */
  async function org(name = `org ${++n}`) {
    const o = await createOrgWithKey(t, undefined, name);
    const api = client(t.app, o.auth);
    const destination = (await api.post('/v1/destinations', { url: `https://app${++n}.vendor.example` })).json().data.id as string;
    return { ...o, api, destination };
  }
  async function endpoint(api: ReturnType<typeof client>, path: string, events?: string[]) {
    const res = await api.post('/v1/webhook-endpoints', { url: receiver.url(path), ...(events ? { events } : {}) });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: string; secret: string };
  }
  /** A domain created the way the API does it: row, history and `hostname.created` in one transaction. */
  async function domain(o: Awaited<ReturnType<typeof org>>, hostname = `shop${++n}.customer.example`) {
    const { domain: d } = await domainsRepository(t.database.db).create({ organizationId: o.org.id, destinationId: o.destination, hostname, isApex: false, externalCustomerId: 'cus_42' });
    return d;
  }
  const deliveryOf = async (api: ReturnType<typeof client>, endpointId: string) =>
    waitFor(`a delivery to ${endpointId}`, async () => (await api.get(`/v1/webhook-deliveries?endpoint_id=${endpointId}`)).json().data[0] as Record<string, any> | undefined);
  const read = async (api: ReturnType<typeof client>, id: string) => (await api.get(`/v1/webhook-deliveries/${id}`)).json().data as Record<string, any>;
  const attempts = async (api: ReturnType<typeof client>, id: string) => (await api.get(`/v1/webhook-deliveries/${id}/attempts`)).json().data as Record<string, any>[];
  const until = (api: ReturnType<typeof client>, id: string, what: string, probe: (d: Record<string, any>) => boolean, timeoutMs = 20_000) =>
    waitFor(`delivery ${id}: ${what}`, async () => { const d = await read(api, id); return probe(d) ? d : null; }, timeoutMs, 50);

  it('a domain going active is announced created → verified → active, signed, to subscribed endpoints only', async () => {
    const a = await org('Acme');
    const all = await endpoint(a.api, '/acme/all');
    const activeOnly = await endpoint(a.api, '/acme/active', ['hostname.active']);
    await endpoint(a.api, '/acme/deleted', ['hostname.deleted']);
    const paused = await endpoint(a.api, '/acme/paused');
    expect((await a.api.patch(`/v1/webhook-endpoints/${paused.id}`, { enabled: false })).statusCode).toBe(200);
    const gone = await endpoint(a.api, '/acme/gone');
    expect((await a.api.delete(`/v1/webhook-endpoints/${gone.id}`)).statusCode).toBe(200);
    const b = await org('Other');
    await endpoint(b.api, '/other/all');

    const d = await domain(a, 'shop.acme-customer.example');
    const domains = domainsRepository(t.database.db);
    expect((await domains.transition(d.id, 'dns_verified', 'DNS verified')).changed).toBe(true);
    expect((await domains.transition(d.id, 'certificate_deployed', 'certificate deployed')).changed).toBe(true);

    const received = await receiver.waitForRequests('/acme/all', 3);
    await receiver.waitForRequests('/acme/active', 1);
    const events = await t.database.db.any(sql.unsafe`select id, kind, created_at from events where domain_id = ${d.id} order by created_at, id`) as readonly { id: string; kind: string; created_at: string }[];
    expect(events.map((e) => e.kind)).toEqual(['hostname.created', 'hostname.verified', 'hostname.active']);

    const bodies = received.map((r) => {
      // The raw body verifies with the secret shown at creation; the header names the event.
      const event = verifyWebhook(r.body, r.headers['service-signature'], all.secret);
      expect(r.headers['service-event-id']).toBe(event.id);
      expect(r.headers['content-type']).toBe('application/json');
      expect(String(r.headers['service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(Object.keys(JSON.parse(r.body))).toEqual(['id', 'event', 'created_at', 'data']);
      return event;
    });
    // Deliveries are independent workflows: the receiver may see them in any order.
    expect(bodies.map((e) => e.event).sort()).toEqual(['hostname.active', 'hostname.created', 'hostname.verified']);
    for (const e of events) {
      const body = bodies.find((x) => x.id === e.id);
      expect(body).toEqual({
        id: e.id, event: e.kind, created_at: e.created_at,
        data: { id: d.id, hostname: 'shop.acme-customer.example', status: { 'hostname.created': 'pending_dns', 'hostname.verified': 'pending_certificate', 'hostname.active': 'active' }[e.kind], destination_id: a.destination, external_customer_id: 'cus_42', metadata: null },
      });
    }
    const activeBody = receiver.received('/acme/active')[0]!;
    expect(verifyWebhook(activeBody.body, activeBody.headers['service-signature'], activeOnly.secret).event).toBe('hostname.active');
    expect(() => verifyWebhook(activeBody.body, activeBody.headers['service-signature'], all.secret)).toThrow(/no signature matches/);

    // Nobody else hears about it: not the unsubscribed, paused or deleted endpoints, nor another organization.
    await new Promise((r) => setTimeout(r, 300));
    for (const path of ['/acme/deleted', '/acme/paused', '/acme/gone', '/other/all']) expect([path, receiver.received(path).length]).toEqual([path, 0]);
    expect(receiver.received('/acme/all')).toHaveLength(3);

    // The delivery log.
    const list = await until(a.api, (await deliveryOf(a.api, all.id)).id, 'succeeded', (x) => x.status === 'succeeded');
    recorded['succeeded'] = list.id;
    expect(Object.keys(list).sort()).toEqual(DELIVERY_KEYS);
    const page = (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${all.id}`)).json();
    expect(page.data).toHaveLength(3);
    await waitFor('every delivery recorded as succeeded', async () => (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${all.id}&status=succeeded`)).json().data.length === 3);
    const delivered = (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${all.id}`)).json().data as Record<string, any>[];
    for (const x of delivered) {
      expect(x).toMatchObject({ endpoint_id: all.id, status: 'succeeded', attempt_count: 1, last_response_code: 200, last_error: null, next_attempt_at: null });
      expect(x.id).toMatch(/^whd_[0-9a-z]{26}$/);
      expect(events.map((e) => e.id)).toContain(x.event_id);
    }
    expect((await a.api.get('/v1/webhook-deliveries')).json().data).toHaveLength(4);
    expect((await a.api.get('/v1/webhook-deliveries?status=failed')).json().data).toEqual([]);
    expect((await a.api.get(`/v1/webhook-deliveries?endpoint_id=${activeOnly.id}`)).json().data.map((x: { event: string }) => x.event)).toEqual(['hostname.active']);
    const paged = (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${all.id}&limit=2`)).json();
    expect(paged).toMatchObject({ has_more: true });
    const rest = (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${all.id}&limit=2&cursor=${paged.next_cursor}`)).json();
    expect(rest.has_more).toBe(false);
    expect(new Set([...paged.data, ...rest.data].map((x: { id: string }) => x.id)).size).toBe(3);
    expect((await a.api.get('/v1/webhook-deliveries?status=sleeping')).statusCode).toBe(400);

    const tries = await attempts(a.api, list.id);
    expect(tries).toHaveLength(1);
    expect(tries[0]).toMatchObject({ attempt_number: 1, response_code: 200, response_body: 'ok', error: null });
    expect(Object.keys(tries[0]!).sort()).toEqual(['attempt_number', 'duration_ms', 'error', 'id', 'response_body', 'response_code', 'started_at']);
    expect(tries[0]!.id).toMatch(/^wha_[0-9a-z]{26}$/);
    expect(tries[0]!.duration_ms).toBeGreaterThanOrEqual(0);

    // Another organization sees none of it: 404 exactly like a missing id.
    for (const res of [await b.api.get(`/v1/webhook-deliveries/${list.id}`), await b.api.get(`/v1/webhook-deliveries/${list.id}/attempts`), await b.api.post(`/v1/webhook-deliveries/${list.id}/retry`), await b.api.get('/v1/webhook-deliveries/whd_00000000000000000000000000')]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('webhook_delivery_not_found');
    }
    expect((await b.api.get('/v1/webhook-deliveries')).json().data).toEqual([]);

    // The Temporal UI finds a delivery by endpoint and shows its attempt.
    const found: { id: string; attempt: unknown }[] = [];
    for await (const w of t.temporal.client.workflow.list({ query: `HostgateEndpointId = "${activeOnly.id}"` })) {
      found.push({ id: w.workflowId, attempt: w.searchAttributes?.HostgateAttempt?.[0] });
    }
    const only = (await a.api.get(`/v1/webhook-deliveries?endpoint_id=${activeOnly.id}`)).json().data[0];
    expect(found).toEqual([{ id: `webhook-delivery/${only.id}`, attempt: 1 }]);
  });

  it('a redirect is a failed attempt; the next one is scheduled about 5 s later', async () => {
    const o = await org();
    receiver.on('/redirect', () => ({ status: 302, headers: { location: receiver.url('/redirect-target') } }));
    const e = await endpoint(o.api, '/redirect');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    const d = await until(o.api, first.id, 'one attempt', (x) => x.attempt_count === 1);
    expect(d).toMatchObject({ status: 'pending', last_response_code: 302, last_error: expect.stringMatching(/redirect \(302 to http:\/\/127\.0\.0\.1:\d+\/redirect-target\) not followed/) });
    const wait = Date.parse(d.next_attempt_at) - Date.parse(d.updated_at);
    expect(wait).toBeGreaterThanOrEqual(4_500);
    expect(wait).toBeLessThanOrEqual(5_500);
    const [attempt] = await attempts(o.api, d.id);
    expect(attempt).toMatchObject({ attempt_number: 1, response_code: 302, error: expect.stringMatching(/redirect/) });
    expect(receiver.received('/redirect-target')).toHaveLength(0);
  });

  it('no answer within the timeout is a failed attempt', async () => {
    const o = await org();
    receiver.on('/slow', () => ({ delayMs: TIMEOUT_MS + 1500 }));
    const e = await endpoint(o.api, '/slow');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    const d = await until(o.api, first.id, 'one attempt', (x) => x.attempt_count === 1);
    expect(d).toMatchObject({ status: 'pending', last_response_code: null, last_error: `timed out after ${TIMEOUT_MS} ms without a response` });
    const [attempt] = await attempts(o.api, d.id);
    expect(attempt).toMatchObject({ response_code: null, response_body: null, error: `timed out after ${TIMEOUT_MS} ms without a response` });
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(attempt!.duration_ms).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('410 Gone disables the endpoint and stops; after re-enabling, a retry delivers the same event', async () => {
    const o = await org();
    receiver.on('/gone', (_r, k) => (k === 1 ? { status: 410, body: 'no such hook' } : { status: 200, body: 'welcome back' }));
    const e = await endpoint(o.api, '/gone');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    const failed = await until(o.api, first.id, 'failed', (x) => x.status === 'failed');
    expect(failed).toMatchObject({ attempt_count: 1, last_response_code: 410, next_attempt_at: null, last_error: expect.stringMatching(/410 Gone/) });
    expect((await o.api.get(`/v1/webhook-endpoints/${e.id}`)).json().data).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    // The workflow has ended: no further attempt is coming.
    const handle = t.temporal.client.workflow.getHandle(`webhook-delivery/${failed.id}`);
    expect(await handle.result()).toEqual({ status: 'failed', attempts: 1 });
    const firstRun = (await handle.describe()).runId;
    expect(receiver.received('/gone')).toHaveLength(1);

    // A retry while the endpoint is still disabled is refused (issue 14: it used to answer 200 and
    // then fail): nothing is sent and the delivery stays as it was.
    const blocked = await o.api.post(`/v1/webhook-deliveries/${failed.id}/retry`);
    expect([blocked.statusCode, blocked.json().error.code, blocked.json().error.details]).toEqual([409, 'webhook_endpoint_disabled', { endpoint_id: e.id, disabled_reason: 'gone' }]);
    expect((await o.api.get(`/v1/webhook-deliveries/${failed.id}`)).json().data).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(receiver.received('/gone')).toHaveLength(1);

    expect((await o.api.patch(`/v1/webhook-endpoints/${e.id}`, { enabled: true })).statusCode).toBe(200);
    const retried = await o.api.post(`/v1/webhook-deliveries/${failed.id}/retry`);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().data).toMatchObject({ id: failed.id, status: 'pending', attempt_count: 0 });
    expect(Math.abs(Date.parse(retried.json().data.next_attempt_at) - Date.now())).toBeLessThan(2_000);
    const done = await until(o.api, failed.id, 'succeeded', (x) => x.status === 'succeeded');
    expect(done).toMatchObject({ attempt_count: 1, last_response_code: 200, last_error: null, next_attempt_at: null });
    const [again, original] = receiver.received('/gone').slice().reverse();
    expect(JSON.parse(again!.body).id).toBe(JSON.parse(original!.body).id);
    expect(again!.headers['service-event-id']).toBe(original!.headers['service-event-id']);
    // Numbered over the delivery's life: the retry's attempt is the 2nd, not a second "1" (issue 25).
    const log = await attempts(o.api, failed.id);
    expect(log.map((x) => [x.attempt_number, x.response_code, x.response_body])).toEqual([[2, 200, 'welcome back'], [1, 410, 'no such hook']]);
    expect(new Set(log.map((x) => x.id)).size).toBe(2);
    // A new run of the same workflow id.
    expect((await handle.describe()).runId).not.toBe(firstRun);
    recorded['gone-then-retried'] = failed.id;
  });

  it('a retry while waiting for the next attempt attempts at once and resets the counters; Retry-After is honoured', async () => {
    const o = await org();
    receiver.on('/busy', (_r, k) => (k === 1 ? { status: 503, headers: { 'retry-after': '120' }, body: 'maintenance' } : { status: 204, body: '' }));
    const e = await endpoint(o.api, '/busy');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    const waiting = await until(o.api, first.id, 'one attempt', (x) => x.attempt_count === 1);
    expect(waiting).toMatchObject({ status: 'pending', last_response_code: 503 });
    // The receiver asked for 120 s: that beats the scheduled 5 s.
    const wait = Date.parse(waiting.next_attempt_at) - Date.parse(waiting.updated_at);
    expect(wait).toBeGreaterThanOrEqual(119_000);
    expect(wait).toBeLessThanOrEqual(121_000);

    const key = `retry-${Date.now()}`;
    const retried = await o.api.post(`/v1/webhook-deliveries/${first.id}/retry`, undefined, { 'idempotency-key': key });
    expect(retried.statusCode).toBe(200);
    const reset = retried.json().data;
    expect(reset).toMatchObject({ id: first.id, status: 'pending', attempt_count: 0, last_response_code: 503 });
    expect(Object.keys(reset).sort()).toEqual(DELIVERY_KEYS);
    expect(Math.abs(Date.parse(reset.next_attempt_at) - Date.now())).toBeLessThan(2_000);

    const started = Date.now();
    await receiver.waitForRequests('/busy', 2, 5_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    const done = await until(o.api, first.id, 'succeeded', (x) => x.status === 'succeeded');
    expect(done).toMatchObject({ attempt_count: 1, last_response_code: 204, next_attempt_at: null, attempting: false });
    expect((await attempts(o.api, first.id)).map((x) => [x.attempt_number, x.response_code])).toEqual([[2, 204], [1, 503]]);

    // The same key replays the answer; nothing is sent again.
    const replay = await o.api.post(`/v1/webhook-deliveries/${first.id}/retry`, undefined, { 'idempotency-key': key });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retried.json());
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received('/busy')).toHaveLength(2);
    expect((await read(o.api, first.id)).status).toBe('succeeded');
    recorded['retried-while-waiting'] = first.id;
  });

  it('a delivery being attempted says so: attempting, no next_attempt_at in the past, then the outcome', async () => {
    const o = await org();
    // The receiver holds its answer (below the 800 ms attempt deadline): the attempt is out meanwhile.
    receiver.on('/slow', () => ({ status: 200, body: 'ok', delayMs: 600 }));
    const e = await endpoint(o.api, '/slow');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    const out = await until(o.api, first.id, 'an attempt out', (x) => x.attempting === true, 10_000);
    expect(out).toMatchObject({ status: 'pending', attempting: true, next_attempt_at: null, attempt_count: 0 });
    const done = await until(o.api, first.id, 'succeeded', (x) => x.status === 'succeeded');
    expect(done).toMatchObject({ attempting: false, attempt_count: 1, last_response_code: 200, next_attempt_at: null });
    // The list says the same as the record.
    expect((await o.api.get(`/v1/webhook-deliveries?endpoint_id=${e.id}`)).json().data[0]).toEqual(done);
  });

  it('narrowing an endpoint\'s events cancels its queued deliveries of the kinds dropped, and only those', async () => {
    const o = await org();
    receiver.on('/narrow', () => ({ status: 500, body: 'not yet' }));
    const e = await endpoint(o.api, '/narrow');
    const d = await domain(o);
    expect((await domainsRepository(t.database.db).transition(d.id, 'dns_verified', 'DNS verified')).changed).toBe(true);
    const waiting = await waitFor('two deliveries waiting after a failed attempt', async () => {
      const list = (await o.api.get(`/v1/webhook-deliveries?endpoint_id=${e.id}`)).json().data as Record<string, any>[];
      return list.length === 2 && list.every((x) => x.attempt_count === 1 && x.status === 'pending' && !x.attempting) ? list : null;
    }, 20_000, 50);
    const created = waiting.find((x) => x.event === 'hostname.created')!;
    const verified = waiting.find((x) => x.event === 'hostname.verified')!;
    expect(created.last_response_code).toBe(500);

    expect((await o.api.patch(`/v1/webhook-endpoints/${e.id}`, { events: ['hostname.verified', 'hostname.active'] })).statusCode).toBe(200);
    expect(await read(o.api, created.id)).toMatchObject({
      status: 'failed', attempting: false, next_attempt_at: null, last_response_code: null,
      last_error: 'canceled: the endpoint no longer subscribes to hostname.created: its events were changed before this delivery could succeed',
    });
    expect(await read(o.api, verified.id)).toMatchObject({ status: 'pending', last_response_code: 500 });
    // The canceled one is not sent again (its next attempt was due 5 s after the first); the kept one is.
    const sent = () => receiver.received('/narrow').map((r) => JSON.parse(r.body).event as string);
    await waitFor('the kept delivery\'s second attempt', async () => sent().filter((k) => k === 'hostname.verified').length >= 2, 20_000, 50);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(sent().filter((k) => k === 'hostname.created')).toHaveLength(1);
    expect((await read(o.api, created.id)).status).toBe('failed');
  });

  it('a delivery ended because its endpoint is disabled shows why, not the old attempt\'s response code', async () => {
    const o = await org();
    receiver.on('/paused-later', () => ({ status: 502, body: 'bad gateway' }));
    const e = await endpoint(o.api, '/paused-later');
    await domain(o);
    const first = await deliveryOf(o.api, e.id);
    await until(o.api, first.id, 'one failed attempt', (x) => x.attempt_count === 1 && x.last_response_code === 502);
    expect((await o.api.patch(`/v1/webhook-endpoints/${e.id}`, { enabled: false })).statusCode).toBe(200);
    // Its next attempt (5 s after the first) finds the endpoint disabled and ends without sending.
    const ended = await until(o.api, first.id, 'failed', (x) => x.status === 'failed', 20_000);
    expect(ended).toMatchObject({ attempting: false, last_response_code: null, next_attempt_at: null, last_error: expect.stringMatching(/^the endpoint is disabled \(manual\)/) });
    expect(receiver.received('/paused-later')).toHaveLength(1);
    // The attempt that was made stays in the log with its answer.
    expect((await attempts(o.api, first.id)).map((x) => [x.attempt_number, x.response_code])).toEqual([[1, 502]]);
  });

  it('retry needs webhooks:write and an Idempotency-Key', async () => {
    const o = await org();
    const e = await endpoint(o.api, '/plain');
    await domain(o);
    const d = await deliveryOf(o.api, e.id);
    const { secret } = await (await import('../db/repositories/api-keys.ts')).apiKeysRepository(t.database.db).create({ organizationId: o.org.id, scopes: ['domains:write'] });
    const limited = client(t.app, { authorization: `Bearer ${secret}` });
    const denied = await limited.post(`/v1/webhook-deliveries/${d.id}/retry`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'insufficient_scope', details: { required_scope: 'webhooks:write' } });
    expect((await limited.get(`/v1/webhook-deliveries/${d.id}`)).statusCode).toBe(200);
    const noKey = await t.app.inject({ method: 'POST', url: `/v1/webhook-deliveries/${d.id}/retry`, headers: o.auth });
    expect(noKey.json().error.code).toBe('idempotency_key_missing');
  });
});
