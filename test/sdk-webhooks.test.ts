// Receiving webhooks with the SDK: a real delivery — made by the delivery activity, signed with
// the endpoint's secret, POSTed to a loopback receiver — verified by `webhooks.constructEvent`,
// before and after a secret rotation; stale and future timestamps, tampered bodies and bodies that
// are not events are refused.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities } from '../activities/webhooks.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import { EVENT_KINDS, Hostgate, WebhookVerificationError, webhooks, type HostgateEvent } from '../sdk/src/index.ts';
import { signatureHeader } from '../sdk/webhooks.ts';
import { eventKinds } from '../model/domain-status.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

describe('SDK webhooks: verify and constructEvent', () => {
  let t: TestApp;
  let receiver: Receiver;
  let hg: Hostgate;
  let n = 0;
  const key = () => ({ idempotencyKey: `sdk-wh-${Date.now()}-${++n}` });

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    receiver = await startReceiver();
    hg = new Hostgate({ apiKey: (await createOrgWithKey(t)).key, baseUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  /** Fans pending events out and makes the first attempt of each new delivery, as the worker does. */
  async function deliverPending(): Promise<void> {
    const deliveries = webhookDeliveriesRepository(t.database.db);
    await deliveries.fanOut(100);
    const activities = createWebhookActivities({ db: t.database.db, logger: createLogger('silent', 'test'), secretBox: t.app.secretBox, allowPrivateTargets: true, timeoutMs: 5_000 });
    const env = new MockActivityEnvironment();
    for (const d of await hg.webhookDeliveries.list({ status: 'pending' }).toArray()) {
      await env.run(activities.attemptWebhookDelivery, { deliveryId: d.id, attempt: 1, redelivery: false, plannedDelayMs: 5_000 });
    }
  }

  it('a real delivery verifies and comes back typed; after rotation both secrets verify', async () => {
    const endpoint = await hg.webhookEndpoints.create({ url: receiver.url('/hook') }, key());
    const destination = await hg.destinations.create({ url: 'https://app.example.com' }, key());
    const domain = await hg.domains.create({ hostname: 'hooked.sdk-webhooks.example', destination_id: destination.id, external_customer_id: 'cus_9' }, key());
    await deliverPending();

    const [first] = await receiver.waitForRequests('/hook', 1);
    const header = first!.headers['service-signature'];
    const event: HostgateEvent = webhooks.constructEvent(first!.body, header, endpoint.secret);
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_/), event: 'hostname.created',
      data: { id: domain.id, hostname: 'hooked.sdk-webhooks.example', status: 'pending_dns', destination_id: destination.id, external_customer_id: 'cus_9' },
    });
    expect(first!.headers['service-event-id']).toBe(event.id);
    // The same verifier through the client and statically.
    expect(hg.webhooks.verify(first!.body, header, endpoint.secret, { toleranceSeconds: 60 })).toEqual(event);
    expect(Hostgate.webhooks.verify(Buffer.from(first!.body), header, endpoint.secret).id).toBe(event.id);
    expect(() => webhooks.constructEvent(first!.body, header, 'whsec_wrong')).toThrow(expect.objectContaining({ code: 'no_matching_signature' }));
    expect(() => webhooks.constructEvent(first!.body.replace('cus_9', 'cus_X'), header, endpoint.secret)).toThrow(expect.objectContaining({ code: 'no_matching_signature' }));

    // The attempt shows through the SDK.
    const [delivery] = await hg.webhookDeliveries.list({ endpoint_id: endpoint.id }).toArray();
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1, last_response_code: 200 });
    const attempts = await hg.webhookDeliveries.attempts(delivery!.id).toArray();
    expect(attempts).toEqual([expect.objectContaining({ attempt_number: 1, response_code: 200, error: null })]);

    // Rotation: the next delivery carries a signature per live secret; either verifies.
    const rotated = await hg.webhookEndpoints.rotateSecret(endpoint.id, key());
    await hg.domains.delete(domain.id, key());
    await deliverPending();
    const [, second] = await receiver.waitForRequests('/hook', 2);
    const header2 = second!.headers['service-signature'] as string;
    expect(header2.match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.secret, rotated.secret]) {
      const e = webhooks.constructEvent(second!.body, header2, secret);
      expect(e.event).toBe('hostname.deleting');
      if (e.event === 'hostname.deleting') expect(e.data.status).toBe('deleting');
    }
  });

  it('refuses stale and future timestamps beyond the tolerance (default 300 s)', () => {
    const body = JSON.stringify({ id: 'evt_1', event: 'hostname.active', created_at: '2026-01-01T00:00:00.000Z', data: { id: 'dom_1', hostname: 'a.example.com', status: 'active', destination_id: 'dst_1', external_customer_id: null } });
    const ts = 1_800_000_000;
    const header = signatureHeader(body, 'whsec_test', ts);
    expect(webhooks.constructEvent(body, header, 'whsec_test', { now: ts + 300 }).event).toBe('hostname.active');
    expect(webhooks.constructEvent(body, header, 'whsec_test', { now: ts - 300 }).event).toBe('hostname.active');
    for (const now of [ts + 301, ts - 301]) {
      expect(() => webhooks.constructEvent(body, header, 'whsec_test', { now })).toThrow(expect.objectContaining({ code: 'timestamp_outside_tolerance' }));
    }
    expect(() => webhooks.verify(body, header, 'whsec_test', { now: ts + 11, toleranceSeconds: 10 })).toThrow(WebhookVerificationError);
    expect(webhooks.verify(body, header, 'whsec_test', { now: ts + 10, toleranceSeconds: 10 }).id).toBe('evt_1');
    // Against the real clock, a header of now verifies and one 10 minutes old does not.
    expect(webhooks.constructEvent(body, webhooks.signatureHeader(body, 'whsec_test'), 'whsec_test').id).toBe('evt_1');
    expect(() => webhooks.constructEvent(body, webhooks.signatureHeader(body, 'whsec_test', Math.floor(Date.now() / 1000) - 600), 'whsec_test')).toThrow(/older than/);
  });

  it('constructEvent refuses signed bodies that are not Hostgate events; verify only checks the signature', () => {
    const sign = (value: unknown) => {
      const body = JSON.stringify(value);
      return { body, header: signatureHeader(body, 'whsec_test') };
    };
    const unknownKind = sign({ id: 'evt_1', event: 'hostname.teleported', created_at: '2026-01-01T00:00:00Z', data: { id: 'dom_1', hostname: 'a.example.com', status: 'active', destination_id: 'dst_1', external_customer_id: null } });
    expect(() => webhooks.constructEvent(unknownKind.body, unknownKind.header, 'whsec_test')).toThrow(expect.objectContaining({ code: 'invalid_payload', message: expect.stringMatching(/hostname\.teleported/) }));
    expect(webhooks.verify(unknownKind.body, unknownKind.header, 'whsec_test').event).toBe('hostname.teleported');
    const noData = sign({ id: 'evt_1', event: 'hostname.active', created_at: '2026-01-01T00:00:00Z' });
    expect(() => webhooks.constructEvent(noData.body, noData.header, 'whsec_test')).toThrow(expect.objectContaining({ code: 'invalid_payload' }));
    expect(() => webhooks.constructEvent('{"a":1}', undefined, 'whsec_test')).toThrow(expect.objectContaining({ code: 'missing_header' }));
  });

  it('knows every event kind the service sends, certificate events with their certificate', () => {
    expect([...EVENT_KINDS].sort()).toEqual([...eventKinds].sort());
    const body = JSON.stringify({ id: 'evt_2', event: 'hostname.certificate_renewed', created_at: '2026-01-01T00:00:00Z', data: {
      id: 'dom_1', hostname: 'a.example.com', status: 'active', destination_id: 'dst_1', external_customer_id: null,
      certificate: { serial: '0a', issuer: 'CN=R11', source: 'managed', not_before: '2026-01-01T00:00:00.000Z', not_after: '2026-04-01T00:00:00.000Z', renews_at: '2026-03-02T00:00:00.000Z' },
    } });
    const event = webhooks.constructEvent(body, signatureHeader(body, 'whsec_test'), 'whsec_test');
    expect(event.event === 'hostname.certificate_renewed' && event.data.certificate?.serial).toBe('0a');
  });
});
