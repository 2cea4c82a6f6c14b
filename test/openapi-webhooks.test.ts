// The OpenAPI document's `webhooks` section (issue 18) against what is really sent: real deliveries
// (Temporal worker, fan-out, loopback HTTP receiver, as in webhook-delivery.test.ts) must match the
// documented payload schema and headers of their event kind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { domainsRepository } from '../db/repositories/domains.ts';
import { createLogger } from '../logging/logger.ts';
import { eventKinds } from '../model/domain-status.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { createWebhookFanOut, type WebhookFanOut } from '../temporal/webhook-fan-out.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { resolveRefs } from './support/openapi-refs.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

type Json = any;

describe('OpenAPI webhooks section', () => {
  let t: TestApp;
  let worker: RunningWorker;
  let fanOut: WebhookFanOut;
  let receiver: Receiver;
  let doc: Json;

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' } });
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    fanOut = createWebhookFanOut({ db: t.database.db, dispatcher: t.dispatcher, logger: createLogger('silent', 'test-fan-out'), databaseUrl: t.database.url });
    await fanOut.start();
    receiver = await startReceiver();
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });
  afterAll(async () => {
    await fanOut?.stop();
    await worker?.stop();
    await receiver?.close();
    await t?.close();
  });

  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const bodySchema = (kind: string) => resolveRefs(doc, doc.webhooks[kind].post.requestBody.content['application/json'].schema);
  const header = (kind: string, name: string) => (doc.webhooks[kind].post.parameters as Json[]).find((p) => p.in === 'header' && p.name === name);
  function check(schema: Json, value: unknown): string | null {
    const validate = ajv.compile(schema);
    return validate(value) ? null : ajv.errorsText(validate.errors);
  }

  it('lists every event kind with its headers and the signing scheme and tolerance', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventKinds].sort());
    for (const kind of eventKinds) {
      const op = doc.webhooks[kind].post;
      expect(op.description).toMatch(/HMAC-SHA256/);
      expect(op.description).toMatch(/<t>\.<raw body>/);
      expect(op.description).toMatch(/300 s/);
      expect(header(kind, 'Service-Signature')).toMatchObject({ required: true });
      expect(header(kind, 'Service-Event-Id')).toMatchObject({ required: true });
      expect(bodySchema(kind).properties.event.const).toBe(kind);
    }
  });

  it('real deliveries match the documented payload and headers of their event kind; a wrong body does not', async () => {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const destination = (await api.post('/v1/destinations', { url: 'https://app.webhooks-doc.example' })).json().data.id as string;
    const endpoint = (await api.post('/v1/webhook-endpoints', { url: receiver.url('/doc') })).json().data as { secret: string };
    const domains = domainsRepository(t.database.db);
    const { domain } = await domains.create({ organizationId: o.org.id, destinationId: destination, hostname: 'shop.webhooks-doc.example', isApex: false, externalCustomerId: null });
    expect((await domains.transition(domain.id, 'dns_verified', 'DNS verified')).changed).toBe(true);
    expect((await domains.transition(domain.id, 'certificate_deployed', 'certificate deployed')).changed).toBe(true);

    const received = await receiver.waitForRequests('/doc', 3);
    const kinds: string[] = [];
    for (const r of received) {
      const event = verifyWebhook(r.body, r.headers['service-signature'], endpoint.secret);
      kinds.push(event.event);
      const body = JSON.parse(r.body);
      expect([event.event, check(bodySchema(event.event), body)]).toEqual([event.event, null]);
      expect(check(header(event.event, 'Service-Signature').schema, r.headers['service-signature'])).toBeNull();
      expect(check(header(event.event, 'Service-Event-Id').schema, r.headers['service-event-id'])).toBeNull();
      expect(check(header(event.event, 'User-Agent').schema, r.headers['user-agent'])).toBeNull();
      // The schemas are not vacuous: another kind's schema, an extra field or a missing one is refused.
      const other = eventKinds.find((k) => k !== event.event)!;
      expect(check(bodySchema(other), body)).not.toBeNull();
      expect(check(bodySchema(event.event), { ...body, extra: 1 })).not.toBeNull();
      expect(check(bodySchema(event.event), { ...body, data: { ...body.data, hostname: undefined } })).not.toBeNull();
    }
    expect(kinds.sort()).toEqual(['hostname.active', 'hostname.created', 'hostname.verified']);
  });
});
