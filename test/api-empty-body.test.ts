// Requests as clients send them (issue 25): `Content-Type: application/json` with an empty body is
// taken as no body on every operation that takes none (and as `{}` where every field is optional),
// as Stripe and GitHub do; it used to answer 400 "the body is empty". Every such operation of the
// served document is called that way, on a real resource, and answers its success status; where a
// body is required, an empty one is still refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { resolveRefs } from './support/openapi-refs.ts';

type Json = any;
const JSON_EMPTY = { 'content-type': 'application/json' };

describe('Content-Type: application/json with an empty body', () => {
  let t: TestApp;
  let doc: Json;
  let n = 0;
  const uniq = () => `${Date.now().toString(36)}-${++n}`;

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });
  afterAll(async () => { await t?.close(); });

  /**
   * Writes that take no body, or one whose every field is optional: what an empty body must be
   * accepted on. An update (PATCH) needs at least one field: its empty body is `{}` and answered
   * as such (below).
   */
  function bodilessWrites(): string[] {
    const out: string[] = [];
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        if (!['post', 'delete'].includes(method)) continue;
        const schema = op.requestBody ? resolveRefs(doc, op.requestBody.content['application/json'].schema) : null;
        if (!schema || !(schema.required ?? []).length) out.push(`${method.toUpperCase()} ${template}`);
      }
    }
    return out.sort();
  }

  it('every operation that takes no body answers its success status, as it does without the header', async () => {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const send = (method: string, url: string, headers: Record<string, string> = {}) => t.app.inject({
      method: method as 'POST', url, payload: '', headers: { ...o.auth, ...JSON_EMPTY, 'idempotency-key': `empty-${uniq()}`, ...headers },
    });
    const destination = async () => (await api.post('/v1/destinations', { url: `https://empty-${uniq()}.example.com` })).json().data.id as string;
    const domain = async () => (await api.post('/v1/domains', { hostname: `shop-${uniq()}.empty-body.example`, destination_id: await destination() })).json().data.id as string;
    const endpoint = async () => (await api.post('/v1/webhook-endpoints', { url: `https://hooks.example.com/${uniq()}` })).json().data.id as string;
    const delivery = async () => {
      const e = await endpoint();
      await domain();
      await webhookDeliveriesRepository(t.database.db).fanOut(100);
      return (await api.get(`/v1/webhook-deliveries?endpoint_id=${e}`)).json().data[0].id as string;
    };
    // The widget's verify, with a session of this organization.
    const origin = 'https://app.example.com';
    const widgetDomain = async () => {
      const dst = await destination();
      const session = (await api.post('/v1/widget-sessions', { external_customer_id: `cus_${uniq()}`, allowed_origins: [origin], destination_id: dst })).json().data;
      const headers = { authorization: `Bearer ${session.token}`, origin };
      const created = await t.app.inject({ method: 'POST', url: '/v1/widget/domains', headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `w-${uniq()}` }, payload: JSON.stringify({ hostname: `w-${uniq()}.empty-body.example` }) });
      expect(created.statusCode).toBe(201);
      return { id: created.json().data.id as string, headers };
    };
    // The portal needs a live subscription: a checkout paid on the built-in provider's page.
    const subscribe = async () => {
      const { url } = (await api.post('/v1/billing/checkout-session', { plan: 'growth' })).json().data;
      await t.app.inject({ method: 'POST', url: `${new URL(url).pathname}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    };

    const calls: Record<string, () => Promise<{ statusCode: number; body: string }>> = {
      'DELETE /v1/destinations/{id}': async () => send('DELETE', `/v1/destinations/${await destination()}`),
      'DELETE /v1/domains/{id}': async () => send('DELETE', `/v1/domains/${await domain()}`),
      // With no custom certificate in place: the domain unchanged (a DELETE is idempotent).
      'DELETE /v1/domains/{id}/certificate': async () => send('DELETE', `/v1/domains/${await domain()}/certificate`),
      'POST /v1/domains/{id}/verify': async () => send('POST', `/v1/domains/${await domain()}/verify`),
      'DELETE /v1/webhook-endpoints/{id}': async () => send('DELETE', `/v1/webhook-endpoints/${await endpoint()}`),
      'POST /v1/webhook-endpoints/{id}/rotate-secret': async () => send('POST', `/v1/webhook-endpoints/${await endpoint()}/rotate-secret`),
      'POST /v1/webhook-deliveries/{id}/retry': async () => send('POST', `/v1/webhook-deliveries/${await delivery()}/retry`),
      'POST /v1/widget/domains/{id}/verify': async () => { const w = await widgetDomain(); return send('POST', `/v1/widget/domains/${w.id}/verify`, w.headers); },
      'POST /v1/billing/portal-session': async () => { await subscribe(); return send('POST', '/v1/billing/portal-session'); },
    };
    // Every such operation of the document is covered, and nothing else is claimed.
    expect(bodilessWrites()).toEqual(Object.keys(calls).sort());
    for (const [op, call] of Object.entries(calls)) {
      const res = await call();
      const [method, template] = op.split(' ');
      const success = Object.keys(doc.paths[template!][method!.toLowerCase()].responses).filter((s) => /^2\d\d$/.test(s));
      expect([op, res.statusCode, success.includes(String(res.statusCode))]).toEqual([op, res.statusCode, true]);
    }
  });

  it('an empty body with the header is the same request as none: a retry without the header replays it', async () => {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const dst = (await api.post('/v1/destinations', { url: 'https://replay-empty.example.com' })).json().data.id as string;
    const id = (await api.post('/v1/domains', { hostname: 'replay.empty-body.example', destination_id: dst })).json().data.id as string;
    const key = `empty-replay-${uniq()}`;
    const first = await t.app.inject({ method: 'DELETE', url: `/v1/domains/${id}`, headers: { ...o.auth, ...JSON_EMPTY, 'idempotency-key': key }, payload: '' });
    expect(first.statusCode).toBe(202);
    const again = await t.app.inject({ method: 'DELETE', url: `/v1/domains/${id}`, headers: { ...o.auth, 'idempotency-key': key } });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([202, 'true']);
    expect(again.json()).toEqual(first.json());
    // A body sent where none is taken is ignored: still the same request, not idempotency_key_reused.
    const withBody = await t.app.inject({ method: 'DELETE', url: `/v1/domains/${id}`, headers: { ...o.auth, ...JSON_EMPTY, 'idempotency-key': key }, payload: '{"force": true}' });
    expect([withBody.statusCode, withBody.headers['idempotent-replayed']]).toEqual([202, 'true']);
  });

  it('where a body is required, an empty one is still refused, saying so', async () => {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const endpoint = (await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/empty-patch' })).json().data.id as string;
    const patch = await t.app.inject({ method: 'PATCH', url: `/v1/webhook-endpoints/${endpoint}`, headers: { ...o.auth, ...JSON_EMPTY, 'idempotency-key': `empty-${uniq()}` }, payload: '' });
    expect([patch.statusCode, patch.json().error.code, patch.json().error.message]).toEqual([400, 'invalid_request', 'send at least one of url, events, enabled, description']);
    const res = await t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...o.auth, ...JSON_EMPTY, 'idempotency-key': `empty-${uniq()}` }, payload: '' });
    expect([res.statusCode, res.json().error.code, res.json().error.message]).toEqual([400, 'invalid_request', 'the body is empty: send a JSON object or omit the Content-Type header']);
  });
});
