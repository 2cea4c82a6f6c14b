// The certificate history, notices and events in Postgres (db/repositories/certificate-lifecycle.ts):
// expiry notices at 14 and 3 days once each, the late renewal failure once, issued vs renewed,
// the brake's window — against a real database, certificates inserted with chosen dates.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { certificateLifecycleRepository } from '../db/repositories/certificate-lifecycle.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

const DAY = 86_400_000;

describe('certificate history, notices and events', () => {
  let t: TestDatabase;
  beforeAll(async () => { t = await createTestDatabase(); });
  afterAll(async () => { await t?.drop(); });

  let n = 0;
  async function domainWithCertificate(notBeforeDaysAgo: number, lifetimeDays: number, status: 'active' | 'pending_certificate' = 'active') {
    const org = await organizationsRepository(t.db).create({ name: `notices ${++n}` });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `shop${n}.notices.test`, isApex: false });
    await t.db.query(sql.unsafe`update domains set status = ${status} where id = ${domain.id}`);
    const cert = await insertCertificate(domain.id, notBeforeDaysAgo, lifetimeDays);
    return { domainId: domain.id, certificateId: cert };
  }
  async function insertCertificate(domainId: string, notBeforeDaysAgo: number, lifetimeDays: number): Promise<string> {
    const id = `cert_${Math.random().toString(36).slice(2, 12)}`;
    await t.db.query(sql.unsafe`
      insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, key_id)
      values (${id}, ${domainId}, ${id.slice(5)}, 'CN=Pebble Intermediate CA', hg_now() - make_interval(secs => ${notBeforeDaysAgo * 86_400}),
        hg_now() - make_interval(secs => ${notBeforeDaysAgo * 86_400}) + make_interval(secs => ${lifetimeDays * 86_400}), 'pem', 'k1')`);
    return id;
  }
  const events = async (domainId: string, kind: string) => await t.db.anyFirst(sql.unsafe`select data from events where domain_id = ${domainId} and kind = ${kind} order by created_at`) as Array<Record<string, any>>;

  it('sends each expiry notice once, 14 then 3 days before expiry, with the certificate', async () => {
    const repo = certificateLifecycleRepository(t.db);
    // 90 days, 80 passed: 10 left — past the 14-day notice, before the 3-day one.
    const { domainId, certificateId } = await domainWithCertificate(80, 90);
    expect(await repo.expiryNotices(domainId)).toEqual([14]);
    expect(await repo.expiryNotices(domainId)).toEqual([]);
    const [expiring] = await events(domainId, 'hostname.certificate_expiring');
    expect(expiring).toMatchObject({ id: domainId, days_left: 14, certificate: { serial: certificateId.slice(5), source: 'managed', issuer: 'CN=Pebble Intermediate CA' } });
    expect(Date.parse(expiring!.certificate.not_after) - Date.parse(expiring!.certificate.not_before)).toBe(90 * DAY);
    await t.db.query(sql.unsafe`update certificates set not_before = not_before - interval '8 days', not_after = not_after - interval '8 days' where id = ${certificateId}`);
    expect(await repo.expiryNotices(domainId)).toEqual([3]);
    expect((await events(domainId, 'hostname.certificate_expiring')).map((e) => e.days_left)).toEqual([14, 3]);
  });

  it('a 6-day certificate gets no expiry notice (its failing renewal is certificate_failed\'s)', async () => {
    const { domainId } = await domainWithCertificate(4, 6);
    expect(await certificateLifecycleRepository(t.db).expiryNotices(domainId)).toEqual([]);
  });

  it('a failing renewal: history each time, hostname.certificate_failed once, only with a third of the life left', async () => {
    const repo = certificateLifecycleRepository(t.db);
    const early = await domainWithCertificate(10, 90);
    expect(await repo.renewalFailed(early.domainId, { code: 'challenge_failed', message: 'no' })).toEqual({ announced: false });
    const late = await domainWithCertificate(61, 90);
    expect(await repo.renewalFailed(late.domainId, { code: 'challenge_failed', message: 'the CA said no' })).toEqual({ announced: true });
    expect(await repo.renewalFailed(late.domainId, { code: 'challenge_failed', message: 'still no' })).toEqual({ announced: false });
    const failed = await events(late.domainId, 'hostname.certificate_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ problem: { code: 'challenge_failed', message: 'the CA said no' }, certificate: { serial: late.certificateId.slice(5) } });
    expect((await repo.history(late.domainId)).map((h) => h.kind)).toEqual(['renewal_failed', 'renewal_failed']);
  });

  it('records a plain issuance (one statement) once, with the detail the transactional path writes', async () => {
    const repo = certificateLifecycleRepository(t.db);
    const { domainId, certificateId } = await domainWithCertificate(0, 90, 'pending_certificate');
    // Not whole seconds, so the detail's milliseconds are compared too.
    await t.db.query(sql.unsafe`update certificates set not_after = not_after + interval '123.456 milliseconds' where id = ${certificateId}`);
    expect(await repo.recordStored(certificateId, 3_600_000)).toEqual({ kind: 'issued', belowFloor: false });
    expect(await repo.recordStored(certificateId, 3_600_000)).toEqual({ kind: 'issued', belowFloor: false });
    const facts = await t.db.one(sql.unsafe`select serial, (extract(epoch from not_after) * 1000)::float8 as not_after from certificates where id = ${certificateId}`) as { serial: string; not_after: number };
    const history = await repo.history(domainId);
    expect(history.map((h) => [h.kind, h.certificate_id, h.detail])).toEqual([['issued', certificateId, `serial ${facts.serial}, valid until ${new Date(facts.not_after).toISOString()}`]]);
    expect(await events(domainId, 'hostname.certificate_renewed')).toHaveLength(0);
  });

  it('records issued for a domain on its way to active, renewed (with its event) for an active one, each once; flags a short lifetime', async () => {
    const repo = certificateLifecycleRepository(t.db);
    // A one-minute certificate first (below a one-hour floor), then a 90-day one.
    const { domainId, certificateId } = await domainWithCertificate(0, 1 / 1440, 'pending_certificate');
    expect(await repo.recordStored(certificateId, 3_600_000)).toEqual({ kind: 'issued', belowFloor: true });
    await t.db.query(sql.unsafe`update domains set status = 'active' where id = ${domainId}`);
    const next = await insertCertificate(domainId, 0, 90);
    expect(await repo.recordStored(next, 3_600_000)).toEqual({ kind: 'renewed', belowFloor: false });
    expect(await repo.recordStored(next, 3_600_000)).toEqual({ kind: 'renewed', belowFloor: false });
    expect((await repo.history(domainId)).map((h) => h.kind)).toEqual(['issued', 'lifetime_below_floor', 'renewed']);
    expect(await events(domainId, 'hostname.certificate_renewed')).toHaveLength(1);
    expect((await repo.latestFacts([domainId])).get(domainId)).toMatchObject({ serial: next.slice(5), source: 'managed' });
  });

  it('the brake admits 5 orders in the hour, then says when the window frees; an order taken back frees its place', async () => {
    const repo = certificateLifecycleRepository(t.db);
    const { domainId } = await domainWithCertificate(0, 90);
    const admitted = [];
    for (let i = 0; i < 5; i++) admitted.push(await repo.admitOrder(domainId, 'http-01', 5, 3_600_000));
    expect(admitted.every((a) => a.admitted)).toBe(true);
    const held = await repo.admitOrder(domainId, 'dns-01', 5, 3_600_000);
    expect(held.admitted).toBe(false);
    if (!held.admitted) expect(held.retryAt - Date.now()).toBeGreaterThan(3_500_000);
    const last = admitted[4]!;
    if (last.admitted) await repo.releaseOrder(last.placementId);
    expect((await repo.admitOrder(domainId, 'http-01', 5, 3_600_000)).admitted).toBe(true);
  });

  it('the brake holds under concurrent orders for one domain: of 12 at once exactly 5 are admitted (the one-statement path reads after its lock)', async () => {
    const repo = certificateLifecycleRepository(t.db);
    const { domainId } = await domainWithCertificate(0, 90);
    const all = await Promise.all(Array.from({ length: 12 }, (_, i) => repo.admitOrder(domainId, i % 2 ? 'http-01' : 'dns-01', 5, 3_600_000)));
    expect(all.filter((a) => a.admitted)).toHaveLength(5);
    expect(await repo.ordersPlacedSince(domainId, Date.now() - 60_000)).toBe(5);
    for (const a of all) if (!a.admitted) expect(a.retryAt - Date.now()).toBeGreaterThan(3_500_000);
  });
});
