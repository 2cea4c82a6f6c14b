// A destination is the vendor's own HTTPS origin: the edge proxies the customer's requests to it.
// Refused when it is this service's edge (its domain, the CNAME target, an edge address, or a
// customer hostname it serves) — every request would come back to the edge, in a loop — or a name
// that resolves to a private address (the edge would connect inside our network). A domain whose
// destination is the domain's own hostname is refused too, from the API and from the widget.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { buildApp, type App } from '../api/app.ts';
import type { PromiseLookup } from '../security/outbound-url.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { client } from './support/http.ts';

const EDGE_IP = '93.184.216.34';
const answers: Record<string, LookupAddress[]> = {
  'edge-alias.vendor.example': [{ address: EDGE_IP, family: 4 }],
  'internal.vendor.example': [{ address: '10.20.30.40', family: 4 }],
  'metadata.vendor.example': [{ address: '169.254.169.254', family: 4 }],
  'app.vendor.example': [{ address: '1.1.1.1', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }],
};
const lookup = (async (hostname: string, options?: { all?: boolean }) => {
  const found = answers[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return options?.all ? found : found[0];
}) as unknown as PromiseLookup;

describe('destinations that would loop or reach inside', () => {
  let t: TestDatabase;
  let app: App;
  let api: ReturnType<typeof client>;
  let auth: Record<string, string>;
  const config = testConfig({ HOSTGATE_EDGE_IPV4: EDGE_IP });

  beforeAll(async () => {
    expect(config.allowPrivateTargets).toBe(false);
    t = await createTestDatabase();
    app = await buildApp({ config, db: t.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test-api'), dnsLookup: lookup });
    await app.ready();
    auth = (await createOrgWithKey({ database: t })).auth;
    api = client(app, auth);
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  it.each([
    ['https://edge.hostgate.test', /edge\.hostgate\.test is this service's own domain/],
    ['https://hostgate.test', /this service's own domain/],
    ['https://api.hostgate.test:8443', /this service's own domain/],
    [`https://${EDGE_IP}`, /an address of this service's edge/],
    ['https://edge-alias.vendor.example', /resolves to 93\.184\.216\.34, an address of this service's edge/],
    ['https://internal.vendor.example', /resolves to 10\.20\.30\.40, which is not a public address/],
    ['https://metadata.vendor.example', /resolves to 169\.254\.169\.254/],
  ])('refuses %s with invalid_request on url', async (url, message) => {
    const res = await api.post('/v1/destinations', { url });
    expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([400, 'invalid_request', 'url']);
    expect(res.json().error.message).toMatch(message);
  });

  it('accepts a public origin, and a name that does not resolve yet (the edge checks each connection)', async () => {
    expect((await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).statusCode).toBe(201);
    expect((await api.post('/v1/destinations', { url: 'https://not-yet.vendor.example' })).statusCode).toBe(201);
  });

  it('refuses a customer hostname the service already serves as a destination (any organization)', async () => {
    const dest = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id as string;
    expect((await api.post('/v1/domains', { hostname: 'shop.served.example', destination_id: dest })).statusCode).toBe(201);
    const other = client(app, (await createOrgWithKey({ database: t }, undefined, 'Other')).auth);
    const res = await other.post('/v1/destinations', { url: 'https://SHOP.served.example' });
    expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([400, 'invalid_request', 'url']);
    expect(res.json().error.message).toMatch(/shop\.served\.example is a customer hostname this service serves/);
  });

  it('refuses a domain whose destination is its own hostname, from the API and from the widget', async () => {
    const self = (await api.post('/v1/destinations', { url: 'https://self.loop.example' })).json().data.id as string;
    const res = await api.post('/v1/domains', { hostname: 'self.loop.example', destination_id: self });
    expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([400, 'invalid_request', 'hostname']);
    expect(res.json().error.message).toMatch(/its destination's own host/);

    const session = (await api.post('/v1/widget-sessions', { external_customer_id: 'cus_loop', allowed_origins: ['https://vendor.example'], destination_id: self })).json().data;
    const widget = await app.inject({
      method: 'POST', url: '/v1/widget/domains', payload: { hostname: 'self.loop.example' },
      headers: { authorization: `Bearer ${session.token}`, origin: 'https://vendor.example', 'idempotency-key': 'loop-1' },
    });
    expect([widget.statusCode, widget.json().error.code, widget.json().error.param]).toEqual([400, 'widget_request_failed', 'hostname']);
    expect(widget.json().error.message).toMatch(/its destination's own host/);
    expect(widget.json().error.details).toEqual({ cause: 'invalid_request' });
    // Another hostname on that destination is fine.
    expect((await api.post('/v1/domains', { hostname: 'www.loop.example', destination_id: self })).statusCode).toBe(201);
  });

  it('an apex from the widget with no edge address configured → widget_request_failed, details.cause apex_domains_unavailable', async () => {
    const noEdge = await buildApp({ config: testConfig({ HOSTGATE_EDGE_IPV4: '' }), db: t.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test-api'), dnsLookup: lookup });
    try {
      const dest = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id as string;
      const session = (await api.post('/v1/widget-sessions', { external_customer_id: 'cus_apex', allowed_origins: ['https://vendor.example'], destination_id: dest })).json().data;
      const res = await noEdge.inject({
        method: 'POST', url: '/v1/widget/domains', payload: { hostname: 'apex-customer.example' },
        headers: { authorization: `Bearer ${session.token}`, origin: 'https://vendor.example', 'idempotency-key': 'apex-1' },
      });
      expect([res.statusCode, res.json().error.code, res.json().error.param, res.json().error.details?.cause]).toEqual([400, 'widget_request_failed', 'hostname', 'apex_domains_unavailable']);
      expect(res.json().error.message).toMatch(/apex domain.*subdomain such as www\.apex-customer\.example/);
      // Read by the vendor's customer: no server setting named (the server API's 422 names them).
      expect(res.json().error.message).not.toMatch(/HOSTGATE_|edge address/);
    } finally {
      await noEdge.close();
    }
  });
});
