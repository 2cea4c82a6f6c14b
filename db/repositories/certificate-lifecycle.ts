// The certificate lifecycle's own rows (migration 015): the orders the per-domain brake counts,
// the certificate history (issued, renewed and the troubles in between), the notices sent once
// per certificate and the events they announce. The decisions (when is the brake on, is a
// failure serious, which notices are due) are model/certificate-lifetime.ts's; this is the SQL.
import type { DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import type { EventKind } from '../../model/domain-status.ts';
import { dueExpiryNotices, nextOrderAllowedAt, renewalFailureIsSerious, replacedAt } from '../../model/certificate-lifetime.ts';
import { NoRows, row, sql, type Db } from '../pool.ts';
import { currentFirst } from './certificates.ts';
import { appendEvent, type CertificateEventFacts } from './events.ts';

export type CertificateHistoryKind = 'issued' | 'renewed' | 'renewal_failed' | 'due_on_arrival' | 'lifetime_below_floor' | 'order_brake'
  // The customer's own certificate (migration 019, db/repositories/custom-certificates.ts).
  | 'custom_installed' | 'custom_removed' | 'custom_lapsing';

const Millis = row(Type.Object({ now: Type.Number(), placed: Type.Array(Type.Number()) }));
const FactsSchema = Type.Object({
  id: Type.String(), domain_id: Type.String(), organization_id: Type.String(), hostname: Type.String(), status: Type.String(),
  destination_id: Type.String(), external_customer_id: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  serial: Type.String(), issuer: Type.String(), source: Type.String(), not_before: Type.Number(), not_after: Type.Number(),
  others: Type.Number(), now: Type.Number(),
});
const FactsRow = row(FactsSchema);
type FactsRow = Static<typeof FactsSchema>;
const HistoryRow = row(Type.Object({ kind: Type.String(), certificate_id: Type.Union([Type.String(), Type.Null()]), detail: Type.Union([Type.String(), Type.Null()]), created_at: Type.String() }));
const LatestRow = row(Type.Object({ domain_id: Type.String(), serial: Type.String(), issuer: Type.String(), source: Type.String(), not_before: Type.Number(), not_after: Type.Number() }));

/** A certificate's facts as reads show them (epoch ms). */
export interface CertificateFacts { serial: string; issuer: string; source: 'managed' | 'custom'; notBefore: number; notAfter: number }
const Inserted = row(Type.Object({ inserted: Type.Boolean() }));

/** A certificate's facts, with its domain's, as of the database's clock (epoch ms). */
const factsQuery = (where: ReturnType<typeof sql.fragment>) => sql.type(FactsRow)`
  select c.id, c.domain_id, d.organization_id, d.hostname, d.status, d.destination_id, d.external_customer_id, d.metadata,
    c.serial, c.issuer, c.source,
    (extract(epoch from c.not_before) * 1000)::float8 as not_before, (extract(epoch from c.not_after) * 1000)::float8 as not_after,
    (select count(*) from certificates o where o.domain_id = c.domain_id and o.id <> c.id and o.created_at <= c.created_at)::float8 as others,
    (extract(epoch from hg_now()) * 1000)::float8 as now
  from certificates c join domains d on d.id = c.domain_id
  where ${where}`;

function eventFacts(f: FactsRow): CertificateEventFacts {
  return {
    id: f.domain_id, hostname: f.hostname, status: f.status, destination_id: f.destination_id, external_customer_id: f.external_customer_id, metadata: f.metadata,
    certificate: {
      serial: f.serial, issuer: f.issuer, source: f.source as 'managed' | 'custom',
      not_before: new Date(f.not_before).toISOString(), not_after: new Date(f.not_after).toISOString(),
      renews_at: new Date(replacedAt({ notBefore: f.not_before, notAfter: f.not_after, source: f.source as 'managed' | 'custom' })).toISOString(),
    },
  };
}

export async function addHistory(tx: DatabaseTransactionConnection | Db, domainId: string, certificateId: string | null, kind: CertificateHistoryKind, detail: string | null): Promise<boolean> {
  return await tx.oneFirst(sql.type(Inserted)`
    with ins as (
      insert into certificate_history (domain_id, certificate_id, kind, detail) values (${domainId}, ${certificateId}, ${kind}, ${detail})
      on conflict do nothing returning 1
    ) select exists (select 1 from ins) as inserted`);
}

async function addNotice(tx: DatabaseTransactionConnection, certificateId: string, kind: 'expiring_14d' | 'expiring_3d' | 'failed'): Promise<boolean> {
  return await tx.oneFirst(sql.type(Inserted)`
    with ins as (insert into certificate_notices (certificate_id, kind) values (${certificateId}, ${kind}) on conflict do nothing returning 1)
    select exists (select 1 from ins) as inserted`);
}

async function announce(tx: DatabaseTransactionConnection, f: FactsRow, kind: EventKind, extra: Record<string, unknown> = {}): Promise<void> {
  await appendEvent(tx, f.organization_id, kind, { ...eventFacts(f), ...extra });
}

/** The one-statement admission's placement id (migration 023); null: take the transaction. */
const PlainAdmission = row(Type.Object({ id: Type.Union([Type.String(), Type.Null()]) }));

export function certificateLifecycleRepository(db: Db) {
  return {
    /**
     * The per-domain brake: records an order about to be placed, unless `limit` orders were placed
     * in the last `windowMs` — then nothing is recorded and the answer says when the window frees.
     * Serialized per domain (advisory lock), so two workers cannot both take the last place.
     */
    async admitOrder(domainId: string, method: 'http-01' | 'dns-01', limit: number, windowMs: number): Promise<{ admitted: true; placementId: string } | { admitted: false; retryAt: number }> {
      // Room in the window (the usual case) in one statement (migration 023); when it is full the
      // transaction below says when it frees.
      const plain = await db.oneFirst(sql.type(PlainAdmission)`
        select hg_admit_order_plain(${domainId}, ${method}, ${limit}, ${windowMs / 1000}) as id`);
      if (plain !== null) return { admitted: true as const, placementId: plain };
      return await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext('certificate-orders/' || ${domainId}))`);
        const { now, placed } = await tx.one(sql.type(Millis)`
          select (extract(epoch from hg_now()) * 1000)::float8 as now,
            coalesce(array_agg((extract(epoch from placed_at) * 1000)::float8), '{}') as placed
          from certificate_order_placements where domain_id = ${domainId} and placed_at > hg_now() - make_interval(secs => ${windowMs / 1000})`);
        const allowedAt = nextOrderAllowedAt(placed, now, limit, windowMs);
        if (allowedAt > now) return { admitted: false as const, retryAt: allowedAt };
        const placementId = await tx.oneFirst(sql.type(row(Type.Object({ id: Type.String() })))`
          insert into certificate_order_placements (domain_id, method) values (${domainId}, ${method}) returning id::text`);
        return { admitted: true as const, placementId };
      });
    },

    /** Takes back an admitted order the CA never saw (it could not be reached). */
    async releaseOrder(placementId: string): Promise<void> {
      await db.query(sql.type(NoRows)`delete from certificate_order_placements where id = ${placementId}::bigint`);
    },

    /** Orders placed for the domain since `sinceMs` (tests, benches). */
    async ordersPlacedSince(domainId: string, sinceMs: number): Promise<number> {
      return await db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`
        select count(*)::int as n from certificate_order_placements where domain_id = ${domainId} and placed_at >= to_timestamp(${sinceMs / 1000})`);
    },

    /**
     * Records a stored managed certificate in the domain's history, once: `renewed` when it
     * replaces the certificate of an active domain (with `hostname.certificate_renewed`), else
     * `issued`; plus
     * `lifetime_below_floor` when it lives shorter than `floorMs`.
     */
    async recordStored(certificateId: string, floorMs: number): Promise<{ kind: 'issued' | 'renewed'; belowFloor: boolean } | null> {
      // The usual case, a first certificate of the lifetime asked for, in one statement: its facts
      // and its `issued` row (the detail as below: toISOString of the whole milliseconds). A renewal (announced in the same transaction)
      // or a short lifetime (a second row) takes the transaction.
      const plain = await db.maybeOne(sql.type(FactsRow)`
        with f as (${factsQuery(sql.fragment`c.id = ${certificateId}`)}),
        ins as (
          insert into certificate_history (domain_id, certificate_id, kind, detail)
          select f.domain_id, f.id, 'issued', 'serial ' || f.serial || ', valid until ' || to_char((timestamptz 'epoch' + floor(f.not_after)::bigint * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          from f where not (f.status = 'active' and f.others > 0) and f.not_after - f.not_before >= ${floorMs}
          on conflict do nothing returning 1
        )
        select f.* from f`);
      if (!plain) return null;
      if (!(plain.status === 'active' && plain.others > 0) && plain.not_after - plain.not_before >= floorMs) return { kind: 'issued', belowFloor: false };
      return await db.transaction(async (tx) => {
        const f = await tx.maybeOne(factsQuery(sql.fragment`c.id = ${certificateId}`));
        if (!f) return null;
        // A renewal replaces the certificate of a domain being served; a certificate ordered on the
        // way to `active` (the first, or again after a resume or a retry) is an issuance.
        const kind = f.status === 'active' && f.others > 0 ? 'renewed' as const : 'issued' as const;
        const fresh = await addHistory(tx, f.domain_id, f.id, kind, `serial ${f.serial}, valid until ${new Date(f.not_after).toISOString()}`);
        if (fresh && kind === 'renewed') await announce(tx, f, 'hostname.certificate_renewed');
        const belowFloor = f.not_after - f.not_before < floorMs;
        if (belowFloor) await addHistory(tx, f.domain_id, f.id, 'lifetime_below_floor', `lifetime ${Math.round((f.not_after - f.not_before) / 1000)} s is below the floor of ${Math.round(floorMs / 1000)} s`);
        return { kind, belowFloor };
      });
    },

    /** A history row for a trouble: a refused renewal, a certificate due on arrival, the brake. */
    async recordTrouble(domainId: string, kind: Exclude<CertificateHistoryKind, 'issued' | 'renewed' | 'lifetime_below_floor' | `custom_${string}`>, detail: string): Promise<void> {
      const latest = await db.maybeOneFirst(sql.type(row(Type.Object({ id: Type.String() })))`
        select id from certificates where domain_id = ${domainId} and deleted_at is null order by ${currentFirst()} limit 1`);
      await addHistory(db, domainId, latest, kind, detail);
    },

    /**
     * A renewal that failed: history `renewal_failed`, and `hostname.certificate_failed` once per
     * certificate when a third of its life or less is left.
     */
    async renewalFailed(domainId: string, problem: { code: string; message: string }): Promise<{ announced: boolean }> {
      return await db.transaction(async (tx) => {
        const f = await tx.maybeOne(factsQuery(sql.fragment`c.domain_id = ${domainId} and c.deleted_at is null order by ${currentFirst('c')} limit 1`));
        await addHistory(tx, domainId, f?.id ?? null, 'renewal_failed', `${problem.code}: ${problem.message}`);
        if (!f || !renewalFailureIsSerious({ notBefore: f.not_before, notAfter: f.not_after }, f.now)) return { announced: false };
        const announced = await addNotice(tx, f.id, 'failed');
        if (announced) await announce(tx, f, 'hostname.certificate_failed', { problem: { code: problem.code, message: problem.message } });
        return { announced };
      });
    },

    /**
     * `hostname.certificate_expiring` for the domain's current certificate (a custom one too):
     * each notice (14 and 3 days before `not_after`) once, when due. Returns the days of the notices sent now.
     */
    async expiryNotices(domainId: string, at?: number): Promise<number[]> {
      return await db.transaction(async (tx) => {
        const f = await tx.maybeOne(factsQuery(sql.fragment`c.domain_id = ${domainId} and c.deleted_at is null order by ${currentFirst('c')} limit 1`));
        if (!f) return [];
        const sent: number[] = [];
        // The nearest notice only: a certificate found 2 days before expiry gets the 3-day one.
        // `at`: the workflow's clock when it asks (time-skipped in tests), else the database's.
        const due = dueExpiryNotices({ notBefore: f.not_before, notAfter: f.not_after }, at ?? f.now, f.source === 'custom' ? 'custom' : 'managed');
        for (const days of due.slice(-1)) {
          if (await addNotice(tx, f.id, days === 14 ? 'expiring_14d' : 'expiring_3d')) {
            await announce(tx, f, 'hostname.certificate_expiring', { days_left: days });
            sent.push(days);
          }
        }
        return sent;
      });
    },

    /** The newest live certificate of each domain given (what every domain read shows). */
    async latestFacts(domainIds: readonly string[]): Promise<Map<string, CertificateFacts>> {
      if (domainIds.length === 0) return new Map();
      const rows = await db.any(sql.type(LatestRow)`
        select distinct on (domain_id) domain_id, serial, issuer, source,
          (extract(epoch from not_before) * 1000)::float8 as not_before, (extract(epoch from not_after) * 1000)::float8 as not_after
        from certificates where domain_id = any(${sql.array([...domainIds], 'text')}) and deleted_at is null
        order by domain_id, ${currentFirst()}`);
      return new Map(rows.map((r) => [r.domain_id, { serial: r.serial, issuer: r.issuer, source: r.source as 'managed' | 'custom', notBefore: r.not_before, notAfter: r.not_after }]));
    },

    /** The domain's certificate history, oldest first. */
    history(domainId: string) {
      return db.any(sql.type(HistoryRow)`select kind, certificate_id, detail, created_at::text from certificate_history where domain_id = ${domainId} order by id`);
    },
  };
}

export type CertificateLifecycleRepository = ReturnType<typeof certificateLifecycleRepository>;
