// What the HTTPS edge reads and reports: the hostnames it should serve (with their current
// certificate, still sealed), the changes since a moment, its heartbeat, the certificates it has
// deployed, and the bytes it carried per domain (migration 008).
import type { CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { row, sql, type Db } from '../pool.ts';
import { currentFirst } from './certificates.ts';
import type { Problem } from '../../model/problem.ts';
import { deployedEverywhere, type EdgeState } from '../../model/edge-health.ts';

/** Domain statuses the edge has something to do for (see docs/edge.md, "What is served"). */
export const edgeStatuses = ['active', 'pending_certificate', 'suspended'] as const;

const Bytes = Type.Refine(Type.Unsafe<Buffer>({}), (v) => Buffer.isBuffer(v), () => 'must be bytea');

export const ServingRow = Type.Object({
  domain_id: Type.String(),
  hostname: Type.String(),
  status: Type.String(),
  destination_host: Type.String(),
  destination_port: Type.Number(),
  certificate_id: Type.Union([Type.String(), Type.Null()]),
  serial: Type.Union([Type.String(), Type.Null()]),
  chain_pem: Type.Union([Type.String(), Type.Null()]),
  private_key_enc: Type.Union([Bytes, Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
  // Per-hostname settings (migration 013): the redirect, the lowest TLS version, HSTS.
  redirect: Type.Union([Type.Object({ to: Type.String(), status: Type.Number(), preserve_path: Type.Boolean() }), Type.Null()]),
  tls_min_version: Type.String(),
  hsts: Type.Union([Type.Object({ max_age: Type.Number(), include_subdomains: Type.Boolean(), preload: Type.Boolean() }), Type.Null()]),
});
export type ServingRow = Static<typeof ServingRow>;
const Serving = row(ServingRow);

// The current stored certificate that still has its key (a custom one in place, else the
// newest); the domain row only when the edge has something to do for it (any other status, or a
// domain that is gone, means "not served").
// Without the PEMs (`digest`), the same rows weigh ≈ 200 bytes instead of ≈ 5 KiB: what a full
// reconcile reads, fetching PEMs only for certificates its cache does not hold (edge/agent/snapshot-read.ts).
const servingSelectOf = (withPems: boolean) => sql.fragment`
  select d.id as domain_id, d.hostname, d.status, dest.host as destination_host, dest.port as destination_port,
         c.id as certificate_id, c.serial,
         ${withPems ? sql.fragment`c.chain_pem, c.private_key_enc, c.key_id` : sql.fragment`null::text as chain_pem, null::bytea as private_key_enc, null::text as key_id`},
         d.redirect, d.tls_min_version, d.hsts
  from domains d
  join destinations dest on dest.id = d.destination_id
  left join lateral (
    select id, serial, chain_pem, private_key_enc, key_id from certificates
    where domain_id = d.id and deleted_at is null and private_key_enc is not null
    order by ${currentFirst()} limit 1
  ) c on true
  where (d.status = any(${sql.array([...edgeStatuses], 'text')})
    -- A zero-downtime move: a certificate obtained before DNS points at us is deployed ahead, so
    -- the first request after the customer switches DNS is served (docs/zero-downtime-moves.md).
    or (d.status = 'pending_dns' and c.id is not null))`;
const servingSelect = servingSelectOf(true);

export interface EdgeNodeStatus {
  id: string;
  started_at: string;
  last_seen_at: string;
  last_sync_at: string | null;
  serving_hostnames: number;
  problems: unknown[];
  deployments: number;
  heartbeat_interval_ms: number;
  state: EdgeState;
  sync_lag_ms: number | null;
  /** The database's clock when read (liveness is judged against it, not the reader's). */
  now: string;
}
const EdgeNodeRow = row(Type.Object({
  id: Type.String(),
  started_at: Type.String(),
  last_seen_at: Type.String(),
  last_sync_at: Type.Union([Type.String(), Type.Null()]),
  serving_hostnames: Type.Number(),
  problems: Type.Array(Type.Unknown()),
  deployments: Type.Number(),
  heartbeat_interval_ms: Type.Number(),
  state: Type.Unsafe<EdgeState>(Type.String()),
  sync_lag_ms: Type.Union([Type.Number(), Type.Null()]),
  now: Type.String(),
}));
const NodeDeploymentRow = row(Type.Object({
  id: Type.String(), last_seen_at: Type.String(), heartbeat_interval_ms: Type.Number(), state: Type.Unsafe<EdgeState>(Type.String()),
  serves: Type.Boolean(), now: Type.String(),
}));

/** What an edge says about itself with its heartbeat (edge/agent/health.ts). */
export interface HeartbeatHealth { state: EdgeState; syncLagMs: number | null; heartbeatIntervalMs: number }

export interface EdgeProblem extends Problem { domain_id: string; hostname: string }
export interface Deployment { domainId: string; certificateId: string }

/** One host's byte counters as read from HAProxy. */
export interface CounterReading { hostname: string; domainId: string; bytesIn: number; bytesOut: number }

/**
 * Bytes a counter carried since the last reading. A counter below its last value, or read from
 * another HAProxy worker, was reset (reload, restart): everything it holds is new.
 */
export function counterDelta(previous: { processKey: string; value: number } | undefined, processKey: string, value: number): number {
  if (!previous || previous.processKey !== processKey || value < previous.value) return value;
  return value - previous.value;
}

const CounterRow = row(Type.Object({ hostname: Type.String(), process_key: Type.String(), bytes_in: Type.Number(), bytes_out: Type.Number() }));
const ChangedRow = row(Type.Object({ domain_id: Type.String() }));
const NowRow = row(Type.Object({ now: Type.String() }));
const DeploymentRow = row(Type.Object({
  hostname: Type.String(), status: Type.String(), certificate_id: Type.String(), serial: Type.String(), not_after: Type.String(), deployed_at: Type.String(),
}));
const BandwidthRow = row(Type.Object({ bytes_in: Type.Number(), bytes_out: Type.Number() }));

const DomainIdRow = row(Type.Object({ id: Type.String() }));
const RecordedRow = row(Type.Object({ domain_id: Type.String(), certificate_id: Type.String(), track_issued: Type.Boolean() }));

export function edgeRepository(db: Db) {
  /** Whether a certificate counts as deployed, with the edges counted and those that do not serve it yet. */
  async function deploymentOf(certificateId: string): Promise<{ deployed: boolean; counted: string[]; missing: string[] }> {
    const rows = await db.any(sql.type(NodeDeploymentRow)`
      select n.id, n.last_seen_at, n.heartbeat_interval_ms, n.state, hg_now() as now,
             exists (select 1 from edge_deployments x where x.edge_id = n.id and x.certificate_id = ${certificateId}) as serves
      from edge_nodes n
      -- Nodes gone for more than a day cannot be live at any interval (600 s at most): not read.
      where n.last_seen_at > hg_now() - interval '1 day'`);
    if (rows.length === 0) return { deployed: false, counted: [], missing: [] };
    const now = Date.parse(rows[0]!.now);
    return deployedEverywhere(rows.map((r) => ({ id: r.id, lastSeenAt: Date.parse(r.last_seen_at), heartbeatIntervalMs: r.heartbeat_interval_ms, state: r.state, servesCertificate: r.serves })), now);
  }
  return {
    /** Every domain the edge may serve (the boot snapshot and the periodic reconcile). */
    async servingAll(): Promise<readonly ServingRow[]> {
      return db.any(sql.type(Serving)`${servingSelect} order by d.hostname`);
    },
    /**
     * Serving rows without certificate PEMs and keys (chain_pem, private_key_enc, key_id null), a
     * page at a time, by hostname after `after` (null: from the first): a full reconcile
     * reads 100,000 rows as pages, leaving Postgres and the agent to changes between them
     * (edge/agent/snapshot-read.ts). `status <> 'deleted'` lets the page walk the live-hostname index.
     * Without JIT: the prepared statement's generic plan is estimated far above jit_above_cost, and
     * Postgres spent ≈ 80 ms compiling each page (20 ms to run it) — 400 ms a page on a busy
     * machine, 15 s for 30 pages at 30,051 hostnames.
     */
    async servingDigestPage(after: string | null, limit: number): Promise<readonly ServingRow[]> {
      return db.transaction(async (tx) => {
        await tx.query(sql.unsafe`set local jit = off`);
        return tx.any(sql.type(Serving)`${servingSelectOf(false)}
          and d.status <> 'deleted' ${after === null ? sql.fragment`` : sql.fragment`and d.hostname > ${after}`}
          order by d.hostname limit ${limit}`);
      });
    },
    /**
     * At most `limit` serving rows: those of `first` (domain ids), then the others by hostname —
     * what a staged boot serves before the rest (edge/agent/staged-boot.ts).
     */
    async servingFirst(first: readonly string[], limit: number): Promise<readonly ServingRow[]> {
      return db.any(sql.type(Serving)`${servingSelect} order by d.id = any(${sql.array([...first], 'text')}) desc, d.hostname limit ${limit}`);
    },
    /** The same rows for some domains; a domain missing from the answer is not to be served. */
    async servingFor(domainIds: readonly string[]): Promise<readonly ServingRow[]> {
      if (domainIds.length === 0) return [];
      return db.any(sql.type(Serving)`${servingSelect} and d.id = any(${sql.array([...domainIds], 'text')})`);
    },
    /**
     * The domains with the most traffic over the last day, busiest first: what a large edge
     * serves first while it loads the rest (edge/agent/staged-boot.ts).
     */
    async busiestDomains(limit: number): Promise<string[]> {
      const rows = await db.any(sql.type(ChangedRow)`
        select domain_id from domain_bandwidth_hourly where hour >= hg_now() - interval '1 day'
        group by domain_id order by sum(bytes_in + bytes_out) desc limit ${limit}`);
      return rows.map((r) => r.domain_id);
    },
    /** The database's clock, the mark the next `changedSince` starts from. */
    async now(): Promise<string> {
      return db.oneFirst(sql.type(NowRow)`select hg_now() as now`);
    },
    /** Domains changed (status, destination, certificate) at or after `since` (polling fallback). */
    async changedSince(since: string): Promise<string[]> {
      const rows = await db.any(sql.type(ChangedRow)`
        select id as domain_id from domains where updated_at >= ${since}
        union select domain_id from certificates where created_at >= ${since}`);
      return rows.map((r) => r.domain_id);
    },
    /**
     * Heartbeat; `synced` also moves last_sync_at (a full reconcile finished). `health` is the
     * edge's own view (state, lag, its heartbeat interval), which the activation check reads.
     */
    async heartbeat(edgeId: string, report: { servingHostnames: number; problems: EdgeProblem[]; synced: boolean; starting?: boolean; health?: HeartbeatHealth }): Promise<void> {
      const problems = sql.jsonb(report.problems as never);
      const h = report.health ?? null;
      await db.query(sql.unsafe`
        insert into edge_nodes (id, last_seen_at, last_sync_at, serving_hostnames, problems, heartbeat_interval_ms, state, sync_lag_ms)
        values (${edgeId}, hg_now(), ${report.synced ? sql.fragment`hg_now()` : null}, ${report.servingHostnames}, ${problems},
                ${h?.heartbeatIntervalMs ?? 10_000}, ${h?.state ?? 'in_sync'}, ${h?.syncLagMs ?? null})
        on conflict (id) do update set last_seen_at = hg_now(),
          last_sync_at = case when ${report.synced} then hg_now() else edge_nodes.last_sync_at end,
          started_at = case when ${report.starting ?? false} then hg_now() else edge_nodes.started_at end,
          serving_hostnames = excluded.serving_hostnames, problems = excluded.problems,
          heartbeat_interval_ms = case when ${h !== null} then excluded.heartbeat_interval_ms else edge_nodes.heartbeat_interval_ms end,
          state = case when ${h !== null} then excluded.state else edge_nodes.state end,
          sync_lag_ms = case when ${h !== null} then excluded.sync_lag_ms else edge_nodes.sync_lag_ms end`);
    },
    /** Only the edge's state (a stopping agent says so at once, before its next heartbeat). */
    async reportState(edgeId: string, state: EdgeState): Promise<void> {
      await db.query(sql.unsafe`update edge_nodes set state = ${state}, last_seen_at = hg_now() where id = ${edgeId}`);
    },
    /**
     * Records, in the caller's transaction, what this edge now serves: `deployed` certificates
     * (upserted; `deployed_at` moves only when the certificate changes) and domains it no longer
     * serves (`removed`). Returns the domains whose deployment is new and that wait for one in
     * pending_certificate (edge/agent/deployment-report.ts tells their workflows); a report that
     * repeats what is recorded (every reconcile does) returns none.
     */
    async recordDeployments(tx: CommonQueryMethods, edgeId: string, deployed: readonly Deployment[], removed: readonly string[] = []): Promise<string[]> {
      let waiting: readonly { id: string }[] = [];
      if (deployed.length > 0) {
        waiting = await tx.any(sql.type(DomainIdRow)`
          with recorded as (
            insert into edge_deployments (edge_id, domain_id, certificate_id)
            select ${edgeId}, d, c from unnest(${sql.array(deployed.map((x) => x.domainId), 'text')}, ${sql.array(deployed.map((x) => x.certificateId), 'text')}) as t (d, c)
            where exists (select 1 from certificates where id = c)
            on conflict (edge_id, domain_id) do update set certificate_id = excluded.certificate_id, deployed_at = hg_now()
            where edge_deployments.certificate_id <> excluded.certificate_id
            returning domain_id
          )
          select d.id from domains d join recorded r on r.domain_id = d.id where d.status = 'pending_certificate'`);
        // The certificate track of a move shows `deployed` once an edge serves its certificate.
        // The moves in flight are locked first, in id order, and their tracks read by the next
        // statement: a `markIssued` running now either committed before the lock (the update
        // below sees `issued`) or waits for this commit (and then sees the record). Without the
        // lock each missed the other's write (domain-moves.ts, markIssued). Only tracks that can
        // still change are locked: a boot's full pass of 100,000 locks none.
        await tx.query(sql.unsafe`
          select from domains where id = any(${sql.array(deployed.map((x) => x.domainId), 'text')})
            and certificate_track->>'status' in ('pending_validation', 'issued')
          order by id for no key update`);
        await tx.query(sql.unsafe`
          update domains d set certificate_track = d.certificate_track || jsonb_build_object('status', 'deployed', 'updated_at', hg_now()), updated_at = hg_now()
          from unnest(${sql.array(deployed.map((x) => x.domainId), 'text')}, ${sql.array(deployed.map((x) => x.certificateId), 'text')}) as t (dom, cert)
          where d.id = t.dom and d.certificate_track->>'certificate_id' = t.cert and d.certificate_track->>'status' = 'issued'`);
      }
      if (removed.length > 0) {
        await tx.query(sql.unsafe`delete from edge_deployments where edge_id = ${edgeId} and domain_id = any(${sql.array([...removed], 'text')})`);
      }
      return waiting.map((w) => w.id);
    },
    /**
     * A page of this edge's recorded deployments, by domain id after `after` (null: from the
     * first). `track_issued`: the domain's certificate track still says `issued` for that
     * certificate (recordDeployments sets it `deployed`; a track written after the record needs
     * the record sent again).
     */
    async deploymentsPage(edgeId: string, after: string | null, limit: number): Promise<readonly { domain_id: string; certificate_id: string; track_issued: boolean }[]> {
      return db.any(sql.type(RecordedRow)`
        select x.domain_id, x.certificate_id,
               coalesce(d.certificate_track->>'certificate_id' = x.certificate_id and d.certificate_track->>'status' = 'issued', false) as track_issued
        from edge_deployments x left join domains d on d.id = x.domain_id
        where x.edge_id = ${edgeId} ${after === null ? sql.fragment`` : sql.fragment`and x.domain_id > ${after}`}
        order by x.domain_id limit ${limit}`);
    },
    /** How many deployments are recorded for this edge (the agent compares it with its own record). */
    async deploymentCount(edgeId: string): Promise<number> {
      return Number(await db.oneFirst(sql.unsafe`select count(*)::int from edge_deployments where edge_id = ${edgeId}`));
    },
    /**
     * Whether this certificate counts as deployed: every live, in-sync edge serves it, and at
     * least one does (model/edge-health.ts, deployedEverywhere; docs/edge.md, "Several edges").
     */
    async isCertificateDeployed(certificateId: string): Promise<boolean> {
      return (await deploymentOf(certificateId)).deployed;
    },
    deploymentOf,
    /** Edge nodes with their last heartbeat and sync (all, or one). */
    async nodes(edgeId?: string): Promise<readonly EdgeNodeStatus[]> {
      return db.any(sql.type(EdgeNodeRow)`
        select n.id, n.started_at, n.last_seen_at, n.last_sync_at, n.serving_hostnames, n.problems,
               n.heartbeat_interval_ms, n.state, n.sync_lag_ms, hg_now() as now,
               (select count(*) from edge_deployments x where x.edge_id = n.id)::int as deployments
        from edge_nodes n ${edgeId ? sql.fragment`where n.id = ${edgeId}` : sql.fragment``} order by n.id`);
    },
    /** What an edge reports serving, by hostname (for `hostgate edge status`). */
    async deployments(edgeId: string, limit: number) {
      return db.any(sql.type(DeploymentRow)`
        select d.hostname, d.status, x.certificate_id, c.serial, c.not_after, x.deployed_at
        from edge_deployments x join domains d on d.id = x.domain_id join certificates c on c.id = x.certificate_id
        where x.edge_id = ${edgeId} order by d.hostname limit ${limit}`);
    },
    /**
     * Adds HAProxy counter readings to the hourly buckets and stores them as the new baseline, in
     * one transaction: a crash before commit re-reads the same counters against the old baseline.
     * Returns the bytes added.
     */
    async recordBandwidth(edgeId: string, processKey: string, readings: readonly CounterReading[], at: Date = new Date()): Promise<{ bytesIn: number; bytesOut: number }> {
      if (readings.length === 0) return { bytesIn: 0, bytesOut: 0 };
      const hour = new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000).toISOString();
      return db.transaction(async (tx) => {
        const previous = new Map((await tx.any(sql.type(CounterRow)`
          select hostname, process_key, bytes_in, bytes_out from edge_bandwidth_counters
          where edge_id = ${edgeId} for update`)).map((r) => [r.hostname, r]));
        const domains: string[] = [];
        const ins: number[] = [];
        const outs: number[] = [];
        for (const r of readings) {
          const p = previous.get(r.hostname);
          const dIn = counterDelta(p && { processKey: p.process_key, value: p.bytes_in }, processKey, r.bytesIn);
          const dOut = counterDelta(p && { processKey: p.process_key, value: p.bytes_out }, processKey, r.bytesOut);
          if (dIn === 0 && dOut === 0) continue;
          domains.push(r.domainId); ins.push(dIn); outs.push(dOut);
        }
        if (domains.length > 0) {
          await tx.query(sql.unsafe`
            insert into domain_bandwidth_hourly (domain_id, hour, bytes_in, bytes_out)
            select d, ${hour}, sum(i), sum(o) from unnest(${sql.array(domains, 'text')}, ${sql.array(ins, 'int8')}, ${sql.array(outs, 'int8')}) as t (d, i, o)
            where exists (select 1 from domains where id = d)
            group by d
            on conflict (domain_id, hour) do update set bytes_in = domain_bandwidth_hourly.bytes_in + excluded.bytes_in,
              bytes_out = domain_bandwidth_hourly.bytes_out + excluded.bytes_out`);
        }
        await tx.query(sql.unsafe`
          insert into edge_bandwidth_counters (edge_id, hostname, process_key, bytes_in, bytes_out)
          select ${edgeId}, h, ${processKey}, i, o from unnest(${sql.array(readings.map((r) => r.hostname), 'text')}, ${sql.array(readings.map((r) => r.bytesIn), 'int8')}, ${sql.array(readings.map((r) => r.bytesOut), 'int8')}) as t (h, i, o)
          on conflict (edge_id, hostname) do update set process_key = excluded.process_key, bytes_in = excluded.bytes_in,
            bytes_out = excluded.bytes_out, updated_at = hg_now()`);
        return { bytesIn: ins.reduce((a, b) => a + b, 0), bytesOut: outs.reduce((a, b) => a + b, 0) };
      });
    },
    /** A domain's bytes in [from, to) summed over edges (hour buckets starting in the range). */
    async domainBandwidth(domainId: string, from: Date, to: Date): Promise<{ bytes_in: number; bytes_out: number }> {
      return db.one(sql.type(BandwidthRow)`
        select coalesce(sum(bytes_in), 0)::int8 as bytes_in, coalesce(sum(bytes_out), 0)::int8 as bytes_out
        from domain_bandwidth_hourly where domain_id = ${domainId} and hour >= ${from.toISOString()} and hour < ${to.toISOString()}`);
    },
  };
}
export type EdgeRepository = ReturnType<typeof edgeRepository>;
