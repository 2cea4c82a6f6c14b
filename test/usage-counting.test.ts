// GET /v1/usage and the counting behind it (migrations 009, 017): active and peak hostnames move in
// the same transaction as every domain status change, at its commit, whatever code path makes it;
// bandwidth comes from the edge's hourly buckets; a period that ended is read as the next one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { usageRepository } from '../db/repositories/usage.ts';
import { billableStatuses, domainTransitionNames, domainStatuses, type DomainTransitionName, type DomainStatus } from '../model/domain-status.ts';
import { randomToken } from '../security/tokens.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

const RUNS_FACTOR = Number(process.env.FC_RUNS_FACTOR ?? 1);
const fcParams = (numRuns: number) => ({
  numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
});

describe('usage counting and GET /v1/usage', () => {
  let t: TestApp;
  let n = 0;
  const host = () => `h${++n}-${randomToken(6).toLowerCase()}.customer-usage.com`;

  async function orgWithDestination() {
    const o = await createOrgWithKey(t);
    const destination = await destinationsRepository(t.database.db).create({ organizationId: o.org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    return { ...o, destinationId: destination.id };
  }
  async function createDomain(organizationId: string, destinationId: string) {
    return (await domainsRepository(t.database.db).create({ organizationId, destinationId, hostname: host(), isApex: false })).domain;
  }
  async function countBillable(organizationId: string): Promise<number> {
    return t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where organization_id = ${organizationId} and status = any(${sql.array([...billableStatuses], 'text')})`) as Promise<number>;
  }

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
  });
  afterAll(async () => { await t?.close(); });

  it('a new organization: starter, inactive, the calendar month, all zero', async () => {
    const { auth } = await orgWithDestination();
    const res = await client(t.app, auth).get('/v1/usage');
    expect(res.statusCode).toBe(200);
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(res.json()).toEqual({
      data: {
        plan: 'starter', billing_status: 'inactive', period_start: monthStart, period_end: nextMonth,
        active_hostnames: 0, peak_hostnames: 0, included_hostnames: 10, overage_hostnames: 0, estimated_overage_cents: 0,
        bandwidth_bytes: 0, bandwidth_gb: 0, included_bandwidth_gb: 50,
      },
    });
  });

  it('counts domains created through the API; the peak stays after deletions and prices the overage', async () => {
    const { auth, org, destinationId } = await orgWithDestination();
    const api = client(t.app, auth);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await api.post('/v1/domains', { hostname: host(), destination_id: destinationId });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().data.id);
    }
    let usage = (await api.get('/v1/usage')).json().data;
    expect(usage).toMatchObject({ active_hostnames: 12, peak_hostnames: 12, included_hostnames: 10, overage_hostnames: 2, estimated_overage_cents: 30 });
    for (const id of ids.slice(0, 3)) expect((await api.delete(`/v1/domains/${id}`)).statusCode).toBe(202);
    // Suspension (operator or billing) goes through the repository's transition, like the workflow's.
    expect((await domainsRepository(t.database.db).transition(ids[3]!, 'suspend', 'test')).changed).toBe(true);
    usage = (await api.get('/v1/usage')).json().data;
    expect(usage).toMatchObject({ active_hostnames: 8, peak_hostnames: 12, overage_hostnames: 2, estimated_overage_cents: 30 });
    expect(usage.active_hostnames).toBe(await countBillable(org.id));
  });

  it('any key of the organization reads it (no scope); only its own organization; no key → 401', async () => {
    const a = await orgWithDestination();
    const b = await orgWithDestination();
    await createDomain(a.org.id, a.destinationId);
    const readOnly = await createOrgWithKey(t, []);
    expect((await client(t.app, readOnly.auth).get('/v1/usage')).json().data.active_hostnames).toBe(0);
    expect((await client(t.app, a.auth).get('/v1/usage')).json().data.active_hostnames).toBe(1);
    expect((await client(t.app, b.auth).get('/v1/usage')).json().data.active_hostnames).toBe(0);
    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/usage' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('missing_api_key');
    const bad = await t.app.inject({ method: 'GET', url: '/v1/usage', headers: { authorization: 'Bearer hg_live_nope' } });
    expect(bad.json().error.code).toBe('invalid_api_key');
  });

  it('counts exactly the statuses model/domain-status.ts calls billable (the trigger agrees with the model)', async () => {
    const { org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    for (const status of domainStatuses) {
      const d = await createDomain(org.id, destinationId);
      const before = (await usageRepository(db).get(org.id))!.active_hostnames;
      await db.query(sql.unsafe`update domains set status = ${status} where id = ${d.id}`);
      const after = (await usageRepository(db).get(org.id))!.active_hostnames;
      expect([status, after - before]).toEqual([status, billableStatuses.includes(status) ? 0 : -1]);
    }
    expect((await usageRepository(db).get(org.id))!.active_hostnames).toBe(await countBillable(org.id));
  });

  it('sums the edge\'s hourly buckets of the period (in + out, updates counted once), in bytes and GB', async () => {
    const { auth, org, destinationId } = await orgWithDestination();
    const d1 = await createDomain(org.id, destinationId);
    const d2 = await createDomain(org.id, destinationId);
    const db = t.database.db;
    const usage = (await client(t.app, auth).get('/v1/usage')).json().data;
    const inPeriod = new Date(Date.parse(usage.period_start) + 3600_000).toISOString();
    const before = new Date(Date.parse(usage.period_start) - 3600_000).toISOString();
    await db.query(sql.unsafe`insert into domain_bandwidth_hourly (domain_id, hour, bytes_in, bytes_out) values
      (${d1.id}, ${inPeriod}, 1000000000, 500000000), (${d2.id}, ${inPeriod}, 250000000, 0), (${d1.id}, ${before}, 7, 7)`);
    // The edge adds to a bucket it already wrote (upsert): only the difference is added.
    await db.query(sql.unsafe`update domain_bandwidth_hourly set bytes_out = bytes_out + 1000 where domain_id = ${d2.id} and hour = ${inPeriod}`);
    const after = (await client(t.app, auth).get('/v1/usage')).json().data;
    expect(after.bandwidth_bytes).toBe(1_750_001_000);
    expect(after.bandwidth_gb).toBe(1.750001);
    expect(after.included_bandwidth_gb).toBe(50);
  });

  it('a period that ended is read as the next one (peak = active), and the next change records the closed one', async () => {
    const { auth, org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    for (let i = 0; i < 3; i++) await createDomain(org.id, destinationId);
    const d = await createDomain(org.id, destinationId);
    await domainsRepository(db).transition(d.id, 'suspend', 'test');
    // Pretend the row was last moved two months ago (peak 4 then).
    await db.query(sql.unsafe`update organization_usage set period_start = date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '2 months',
      period_end = date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '1 month' where organization_id = ${org.id}`);
    const read = (await client(t.app, auth).get('/v1/usage')).json().data;
    expect(read).toMatchObject({ active_hostnames: 3, peak_hostnames: 3 });
    expect(Date.parse(read.period_start)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(read.period_end)).toBeGreaterThan(Date.now());
    await createDomain(org.id, destinationId);
    const closed = await db.any(sql.unsafe`select period_start, period_end, peak_hostnames from usage_periods where organization_id = ${org.id} order by period_start`) as ReadonlyArray<{ peak_hostnames: number }>;
    expect(closed.map((r) => r.peak_hostnames)).toEqual([4, 3]);
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ active_hostnames: 4, peak_hostnames: 4, period_start: read.period_start });
  });

  it('a create holds no lock on the usage row until its commit (issue 26): concurrent creates do not wait for each other', async () => {
    const { org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    let seenInside: { active: number; lockedElsewhere: boolean } | undefined;
    await db.transaction(async (tx) => {
      await domainsRepository(db).create({ organizationId: org.id, destinationId, hostname: host(), isApex: false }, tx);
      // Another connection may lock the row while this create is open: the counting happens at commit.
      const other = await db.transaction(async (tx2) => tx2.maybeOne(sql.unsafe`
        select active_hostnames from organization_usage where organization_id = ${org.id} for update nowait`)) as { active_hostnames: number } | null;
      seenInside = { active: other!.active_hostnames, lockedElsewhere: false };
    });
    expect(seenInside).toEqual({ active: 0, lockedElsewhere: false });
    expect((await usageRepository(db).get(org.id))!).toMatchObject({ active_hostnames: 1, peak_hostnames: 1 });
    // Rolled back: never counted.
    await expect(db.transaction(async (tx) => {
      await domainsRepository(db).create({ organizationId: org.id, destinationId, hostname: host(), isApex: false }, tx);
      throw new Error('abandon');
    })).rejects.toThrow('abandon');
    expect((await usageRepository(db).get(org.id))!).toMatchObject({ active_hostnames: 1, peak_hostnames: 1 });
  });

  it('creates of one organization do not wait for each other at commit; a decrement waits for the increments in flight (migration 022)', async () => {
    const { org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    const [a, b] = [await createDomain(org.id, destinationId), await createDomain(org.id, destinationId)];
    // A create's counting fired (its shard row held) but not committed: another create of the same
    // organization counts and commits without waiting (one usage row, as up to 021, would block it:
    // lock_timeout fails the statement).
    await db.transaction(async (tx) => {
      await domainsRepository(db).create({ organizationId: org.id, destinationId, hostname: host(), isApex: false }, tx);
      await tx.query(sql.unsafe`set constraints domains_usage_count immediate`);
      await db.transaction(async (tx2) => {
        await tx2.query(sql.unsafe`set local lock_timeout = '2s'`);
        await domainsRepository(db).create({ organizationId: org.id, destinationId, hostname: host(), isApex: false }, tx2);
        await tx2.query(sql.unsafe`set constraints domains_usage_count immediate`);
      });
      // A decrement must order itself after this open increment: it waits (here: times out).
      await expect(db.transaction(async (tx3) => {
        await tx3.query(sql.unsafe`set local lock_timeout = '300ms'`);
        await tx3.query(sql.unsafe`update domains set status = 'suspended' where id = ${a.id}`);
        await tx3.query(sql.unsafe`set constraints domains_usage_count immediate`);
      })).rejects.toThrow(/lock timeout/);
    });
    expect((await usageRepository(db).get(org.id))!).toMatchObject({ active_hostnames: 4, peak_hostnames: 4 });
    expect((await domainsRepository(db).transition(b.id, 'suspend', 'test')).changed).toBe(true);
    expect((await usageRepository(db).get(org.id))!).toMatchObject({ active_hostnames: 3, peak_hostnames: 4 });
    // The decrement folded the shards into the usage row, the period close's source of the peak.
    expect(await db.one(sql.unsafe`select u.active_hostnames, u.peak_hostnames, (select sum(added)::int from organization_usage_shards s where s.organization_id = u.organization_id) as in_shards
      from organization_usage u where u.organization_id = ${org.id}`)).toEqual({ active_hostnames: 3, peak_hostnames: 4, in_shards: 0 });
  });

  it('increments still in the counter shards when a period ends count in that period: the roll folds them first (migration 022)', async () => {
    const { auth, org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    for (let i = 0; i < 3; i++) await createDomain(org.id, destinationId);
    expect(await db.oneFirst(sql.unsafe`select sum(added)::int from organization_usage_shards where organization_id = ${org.id}`)).toBe(3);
    // The period ends with the three creates only in the shards (no decrement folded them).
    await db.query(sql.unsafe`update organization_usage set period_start = date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - interval '1 month',
      period_end = date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' where organization_id = ${org.id}`);
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ active_hostnames: 3, peak_hostnames: 3 });
    // An increment after the end takes the usage row and rolls it: the closed period's peak is 3.
    await createDomain(org.id, destinationId);
    const closed = await db.any(sql.unsafe`select peak_hostnames from usage_periods where organization_id = ${org.id}`) as ReadonlyArray<{ peak_hostnames: number }>;
    expect(closed.map((r) => r.peak_hostnames)).toEqual([3]);
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ active_hostnames: 4, peak_hostnames: 4 });
  });

  it('a domain created and deleted in one transaction counts at its commit: active back to 0, the peak 1 (it was counted)', async () => {
    const { org, destinationId } = await orgWithDestination();
    const db = t.database.db;
    await db.transaction(async (tx) => {
      const { domain } = await domainsRepository(db).create({ organizationId: org.id, destinationId, hostname: host(), isApex: false }, tx);
      await tx.query(sql.unsafe`update domains set status = 'deleted', deleted_at = hg_now() where id = ${domain.id}`);
    });
    expect((await usageRepository(db).get(org.id))!).toMatchObject({ active_hostnames: 0, peak_hostnames: 1 });
  });

  describe('property: under concurrent creates, activations, suspensions, resumes, failures and deletions', () => {
    // The oracle: every status change of every domain, in the order the changes took the
    // organization's usage row or a counter shard (a test-only deferred trigger named after the
    // counting one fires after it at commit, while that row lock is held until the commit ends; a
    // decrement locks every shard, so its sequence number comes after every increment that commits
    // before it and before every one that commits after it — the commit order, up to the order of
    // increments among themselves, which does not change any count or maximum). From this log alone,
    // with the billable list of the model, the true active count after each change and its
    // maximum follow — independently of the counter under test.
    beforeAll(async () => {
      await t.database.db.query(sql.unsafe`
        create table test_status_log (seq bigint generated always as identity, organization_id text, old_status text, new_status text)`);
      await t.database.db.query(sql.unsafe`
        create function test_log_status() returns trigger language plpgsql as $$
        begin
          insert into test_status_log (organization_id, old_status, new_status)
          values (coalesce(new.organization_id, old.organization_id), case when tg_op = 'INSERT' then null else old.status end, new.status);
          return null;
        end $$`);
      await t.database.db.query(sql.unsafe`
        create constraint trigger domains_usage_count_zz_test_log after insert or update of status or delete on domains
        deferrable initially deferred for each row execute function test_log_status()`);
    });

    type Op = { kind: 'create' } | { kind: 'move'; move: DomainTransitionName; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.constant({ kind: 'create' as const }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('move' as const), move: fc.constantFrom<DomainTransitionName>(...domainTransitionNames), pick: fc.nat() }), weight: 5 },
    );

    it('active_hostnames is the true count and peak_hostnames the true maximum', async () => {
      const db = t.database.db;
      const domains = domainsRepository(db);
      await fc.assert(fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 6 }), async (rounds) => {
        const { org, destinationId } = await orgWithDestination();
        const ids: string[] = [];
        for (const round of rounds) {
          // One round runs concurrently (the pool has 10 connections); rounds run one after another.
          const known = [...ids];
          await Promise.all(round.map(async (o) => {
            if (o.kind === 'create') { ids.push((await createDomain(org.id, destinationId)).id); return; }
            if (known.length === 0) return;
            await domains.transition(known[o.pick % known.length]!, o.move, 'property test');
          }));
        }
        const log = await db.any(sql.unsafe`select old_status, new_status from test_status_log where organization_id = ${org.id} order by seq`) as ReadonlyArray<{ old_status: string | null; new_status: string | null }>;
        const counts = (s: unknown) => (s !== null && billableStatuses.includes(s as DomainStatus) ? 1 : 0);
        let active = 0;
        let peak = 0;
        for (const entry of log) {
          active += counts(entry.new_status) - counts(entry.old_status);
          peak = Math.max(peak, active);
        }
        const usage = (await usageRepository(db).get(org.id))!;
        expect(active).toBe(await countBillable(org.id));
        expect({ active: usage.active_hostnames, peak: usage.peak_hostnames }).toEqual({ active, peak });
      }), fcParams(25));
    });
  });
});
