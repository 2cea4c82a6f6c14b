// The delivery activity's reads and writes in as few statements as they can be (issue 26): the
// delivery and its event in one read, an attempt and the delivery's new state in one write — and
// still a sequence number never drawn twice when two records of one delivery race.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookDeliveriesRepository, type AttemptRecord } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { SecretBox } from '../security/secret-box.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

describe('webhook attempt records', () => {
  let t: TestDatabase;
  const box = new SecretBox(testConfig().encryptionKeys);

  beforeAll(async () => { t = await createTestDatabase(); });
  afterAll(async () => { await t?.drop(); });

  async function deliveryIds(count: number): Promise<string[]> {
    const org = await organizationsRepository(t.db).create({ name: 'Records' });
    await webhookEndpointsRepository(t.db, box).create({ organizationId: org.id, url: 'https://hooks.example.com/x', events: ['*'] });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    for (let i = 0; i < count; i++) await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `d${i}-${Date.now()}.records.example`, isApex: false, externalCustomerId: 'cus_1' });
    await webhookDeliveriesRepository(t.db).fanOut(100);
    return await t.db.anyFirst(sql.unsafe`select id from webhook_deliveries where organization_id = ${org.id} order by id`) as string[];
  }
  const record = (deliveryId: string, attempt: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
    deliveryId, attempt, startedAt: new Date().toISOString(), durationMs: 3, responseCode: 500, responseBody: `boom ${attempt}`, error: null,
    status: 'pending', lastError: 'the endpoint answered 500', nextDelayMs: 5_000, ...over,
  });

  it('loads a delivery with its event in one statement; a missing one is null', async () => {
    const [id] = await deliveryIds(1);
    const deliveries = webhookDeliveriesRepository(t.db);
    const loaded = await deliveries.loadForAttempt(id!);
    expect(loaded?.delivery).toEqual(await deliveries.getById(id!));
    const event = await t.db.one(sql.unsafe`select id, organization_id, kind, data, created_at from events where id = ${loaded!.delivery.event_id}`);
    expect(loaded?.event).toEqual(event);
    expect(loaded?.event).toMatchObject({ kind: 'hostname.created', data: expect.objectContaining({ external_customer_id: 'cus_1' }) });
    expect(await deliveries.loadForAttempt('whd_00000000000000000000000000')).toBeNull();
  });

  it('records an attempt and the delivery\'s state at once; racing records draw distinct sequence numbers', async () => {
    const ids = await deliveryIds(20);
    const deliveries = webhookDeliveriesRepository(t.db);
    // Two records of each delivery at the same moment (a retried attempt beside a retry request's).
    await Promise.all(ids.flatMap((id) => [deliveries.recordAttempt(record(id, 1)), deliveries.recordAttempt(record(id, 2))]));
    for (const id of ids) {
      const rows = await t.db.any(sql.unsafe`select attempt_number, sequence_number from webhook_attempts where delivery_id = ${id} order by sequence_number`) as readonly { attempt_number: number; sequence_number: number }[];
      expect(rows.map((r) => r.sequence_number)).toEqual([1, 2]);
      expect(rows.map((r) => r.attempt_number).sort()).toEqual([1, 2]);
    }
    // The write answers with the delivery as it now stands.
    const [first] = ids;
    const after = await deliveries.recordAttempt(record(first!, 3, { responseCode: 200, responseBody: 'ok', status: 'succeeded', lastError: null, nextDelayMs: null }));
    expect(after).toMatchObject({ id: first, status: 'succeeded', attempt_count: 3, last_response_code: 200, last_error: null, next_attempt_at: null, attempting: false });
    expect(await t.db.anyFirst(sql.unsafe`select sequence_number from webhook_attempts where delivery_id = ${first!} order by sequence_number`)).toEqual([1, 2, 3]);
    // A delivery that does not exist: nothing recorded.
    expect(await deliveries.recordAttempt(record('whd_00000000000000000000000000', 1))).toBeNull();
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_attempts where delivery_id = 'whd_00000000000000000000000000'`)).toBe(0);
  });
});
