import { UniqueIntegrityConstraintViolationError, type DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import { domainTransitions, domainStatuses, type DomainTransitionName, type DomainStatus } from '../../model/domain-status.ts';
import { DOMAIN_WORKFLOW_PREFIX, domainWorkflowId, type DomainSignalPayload } from '../../contracts/domain-workflow.ts';
import { newId } from '../ids.ts';
import { afterCursor, toPage, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';
import type { CertificateFacts } from './certificate-lifecycle.ts';
import { currentFirst } from './certificates.ts';
import { appendEvent, type HostnameEventData } from './events.ts';
import { RETENTION_HOURS } from './idempotency-keys.ts';
import { domainSignalInsert } from './workflow-outbox.ts';
import type { Problem } from '../../model/problem.ts';
import { redirectStatuses, tlsMinVersions, type HstsSetting, type Metadata, type RedirectSetting, type TlsMinVersion } from '../../model/domain-settings.ts';
import type { OutboxPayload } from '../../contracts/outbox-messages.ts';
import { wildcardCovers } from '../../model/wildcards.ts';

export const DomainRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  destination_id: Type.String(),
  hostname: Type.String(),
  is_apex: Type.Boolean(),
  status: Type.Union(domainStatuses.map((s) => Type.Literal(s))),
  status_seq: Type.Number(),
  external_customer_id: Type.Union([Type.String(), Type.Null()]),
  widget_session_id: Type.Union([Type.String(), Type.Null()]),
  verification: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  verify_requested_at: Type.Union([Type.String(), Type.Null()]),
  workflow_started_at: Type.Union([Type.String(), Type.Null()]),
  // Zero-downtime moves (migration 010): the ownership token, the delegation label and the two tracks.
  ownership_token: Type.String(),
  challenge_label: Type.String(),
  ownership: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  certificate_track: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  // Settings a vendor changes after creation (migration 013, issue 23).
  metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  redirect: Type.Union([Type.Object({ to: Type.String(), status: Type.Union(redirectStatuses.map((s) => Type.Literal(s))), preserve_path: Type.Boolean() }), Type.Null()]),
  tls_min_version: Type.Union(tlsMinVersions.map((v) => Type.Literal(v))),
  hsts: Type.Union([Type.Object({ max_age: Type.Number(), include_subdomains: Type.Boolean(), preload: Type.Boolean() }), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type DomainRow = Static<typeof DomainRow>;
const Domain = row(DomainRow);
const columnNames = Object.keys(DomainRow.properties) as Array<keyof DomainRow>;
const columns = sql.join(columnNames.map((c) => sql.identifier([c])), sql.fragment`, `);
const HostRow = row(Type.Object({ host: Type.String() }));
const HostnameRow = row(Type.Object({ hostname: Type.String() }));
const CreatedRow = row(Type.Object({ ...DomainRow.properties, outbox_id: Type.Number() }));
const CreateAnsweredRow = row(Type.Object({ destination_host: Type.Union([Type.String(), Type.Null()]), claim_held: Type.Boolean(), outbox_id: Type.Union([Type.Number(), Type.Null()]), answered: Type.Boolean() }));
/**
 * Reads show the domain's newest live certificate (issue 22): joined in the read's own statement,
 * not fetched by a second query per read (that second query cost reads 22–28 % in bench:api).
 */
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
const WithFactsSchema = Type.Object({
  ...DomainRow.properties,
  cert_serial: NullableString, cert_issuer: NullableString, cert_source: NullableString, cert_not_before: NullableNumber, cert_not_after: NullableNumber,
});
const WithFactsRow = row(WithFactsSchema);
type WithFacts = Static<typeof WithFactsSchema>;
const newestCertificate = sql.fragment`left join lateral (
  select c.serial as cert_serial, c.issuer as cert_issuer, c.source as cert_source,
    (extract(epoch from c.not_before) * 1000)::float8 as cert_not_before, (extract(epoch from c.not_after) * 1000)::float8 as cert_not_after
  from certificates c where c.domain_id = domains.id and c.deleted_at is null order by ${currentFirst('c')} limit 1) newest on true`;
function splitFacts(r: WithFacts): { domain: DomainRow; facts: CertificateFacts | null } {
  const { cert_serial, cert_issuer, cert_source, cert_not_before, cert_not_after, ...domain } = r;
  const facts = cert_serial === null ? null
    : { serial: cert_serial, issuer: cert_issuer!, source: cert_source as CertificateFacts['source'], notBefore: cert_not_before!, notAfter: cert_not_after! };
  return { domain, facts };
}
const TransitionRow = row(Type.Object({ ...DomainRow.properties, changed: Type.Boolean(), previous_status: DomainRow.properties.status, outbox_id: Type.Union([Type.Number(), Type.Null()]) }));

/**
 * The Idempotency-Key of a one-statement create (createAnswered) with the sealed answer: a claim
 * the request holds (`held`), or a key to insert with the answer (`new`, issue 26: the claim's own
 * statement and commit saved).
 */
export type AnswerClaim =
  | { kind: 'held'; scope: string; key: string; claimedAt: string; status: number; keyId: string; ciphertext: Buffer }
  | { kind: 'new'; scope: string; key: string; method: string; path: string; bodyHash: Buffer; status: number; keyId: string; ciphertext: Buffer };

export class DomainConflictError extends Error {
  constructor(hostname: string) { super(`${hostname} is already connected`); }
}

function eventData(d: DomainRow): HostnameEventData {
  return { id: d.id, hostname: d.hostname, status: d.status, destination_id: d.destination_id, external_customer_id: d.external_customer_id, metadata: d.metadata };
}

/** A PATCH of a domain: only the fields present change (null clears where allowed). */
export interface DomainPatch {
  destinationId?: string;
  metadata?: Metadata | null;
  redirect?: RedirectSetting | null;
  externalCustomerId?: string | null;
  tlsMinVersion?: TlsMinVersion;
  hsts?: HstsSetting | null;
}

export type UpdateResult =
  | { result: 'updated'; domain: DomainRow; changed: string[] }
  | { result: 'not_found' | 'deleted' | 'destination_not_found' | 'destination_loops'; domain: DomainRow | null };

export interface DomainFilters { status?: DomainStatus | undefined; hostname?: string | undefined; externalCustomerId?: string | undefined; metadata?: { key: string; value: string } | undefined }

export type TransitionResult =
  /** `outboxId`: the row that carries `options.signal` — queued with the move, or the same wake-up signal already waiting (null when none was asked for). */
  | { changed: true; domain: DomainRow; from: DomainStatus; outboxId: number | null }
  | { changed: false; domain: DomainRow | null; reason: 'not_found' | 'not_allowed' | 'already' | 'stale' };

export interface TransitionOptions {
  organizationId?: string;
  /**
   * Queued for the domain's workflow (workflow_outbox) in the move's own statement when the move
   * happens: whoever dies after the commit, the outbox dispatcher delivers it. A wake-up signal
   * coalesces with the same one already waiting (`domainSignalInsert`).
   */
  signal?: DomainSignalPayload;
  /** Refuse the move unless the row is still at this sequence number. */
  expectedSeq?: number;
  /** Set `verification.problem` with the move (null clears it). */
  problem?: Problem | null;
  /** Keys merged into `verification` with the move (only when it moves). */
  verification?: Record<string, unknown>;
}

export function domainsRepository(db: Db) {
  /**
   * The named transition (model/domain-status.ts) as ONE statement: lock the row, check it may
   * move (already at the target → `already`; another sequence number than the caller saw →
   * `stale`; not from a status the transition starts from → `not_allowed`), update it, append the
   * history row and the transition's event, and queue the signal asked for (`queued`). One round
   * trip instead of six (BEGIN, lock, update, history, event, COMMIT) — transitions are what a
   * burst of verifies spends its database time on.
   */
  /**
   * The pending row that carries a coalesced wake-up signal (`domainSignalInsert` queued none
   * because the same signal was already waiting): its id is what the caller dispatches.
   */
  const waiting = (signal: DomainSignalPayload) => sql.fragment`(
    select o.id from workflow_outbox o, upd
    where o.workflow_id = ${DOMAIN_WORKFLOW_PREFIX}::text || upd.id and o.kind = 'signal_domain' and o.dispatched_at is null
      and o.payload->>'signal' = ${signal.signal}
    order by o.id limit 1)`;

  async function transitionIn(conn: Pick<DatabaseTransactionConnection, 'maybeOne'>, domainId: string, name: DomainTransitionName, reason: string | null, organizationId?: string, expectedSeq?: number, verification?: Record<string, unknown>, signal?: DomainSignalPayload): Promise<TransitionResult> {
    const patch = verification ? sql.jsonb(verification as never) : null;
    const orgFilter = organizationId ? sql.fragment`and organization_id = ${organizationId}` : sql.fragment``;
    const { from: allowedFrom, to, event } = domainTransitions[name];
    const result = await conn.maybeOne(sql.type(TransitionRow)`
      with cur as (
        select ${columns} from domains where id = ${domainId} ${orgFilter} for update
      ), upd as (
        update domains d set status = ${to}, status_seq = d.status_seq + 1, updated_at = hg_now(),
          deleted_at = case when ${to} = 'deleted' then hg_now() else d.deleted_at end,
          verification = case when ${patch}::jsonb is null then d.verification else coalesce(d.verification, '{}'::jsonb) || ${patch}::jsonb end
        from cur
        where d.id = cur.id and cur.status <> ${to} and cur.status = any(${sql.array([...allowedFrom], 'text')})
          and (${expectedSeq ?? null}::int is null or cur.status_seq = ${expectedSeq ?? null}::int)
        returning ${sql.join(columnNames.map((c) => sql.fragment`d.${sql.identifier([c])}`), sql.fragment`, `)}
      ), history as (
        insert into domain_status_history (domain_id, seq, from_status, to_status, reason)
        select upd.id, upd.status_seq, cur.status, upd.status, ${reason} from upd cross join cur
      ), event as (
        insert into events (id, organization_id, kind, domain_id, data)
        select ${newId('event')}, upd.organization_id, ${event}::text, upd.id,
          jsonb_build_object('id', upd.id, 'hostname', upd.hostname, 'status', upd.status, 'destination_id', upd.destination_id, 'external_customer_id', upd.external_customer_id, 'metadata', upd.metadata)
        from upd where ${event}::text is not null
      ), queued as (
        ${signal ? sql.fragment`${domainSignalInsert(sql.fragment`select ${DOMAIN_WORKFLOW_PREFIX}::text || upd.id as w from upd`, signal)} returning id` : sql.fragment`select null::int8 as id where false`}
      )
      select (upd.id is not null) as changed, cur.status as previous_status, coalesce((select id from queued limit 1), ${signal ? waiting(signal) : sql.fragment`null::int8`}) as outbox_id,
        ${sql.join(columnNames.map((c) => sql.fragment`case when upd.id is null then cur.${sql.identifier([c])} else upd.${sql.identifier([c])} end as ${sql.identifier([c])}`), sql.fragment`, `)}
      from cur left join upd on true`);
    if (!result) return { changed: false, domain: null, reason: 'not_found' };
    const { changed, previous_status: from, outbox_id: outboxId, ...domain } = result;
    if (changed) return { changed: true, domain, from, outboxId };
    if (domain.status === to) return { changed: false, domain, reason: 'already' };
    // The writer saw an older state than the row now has (a retried or late activity, or the API
    // moved the domain meanwhile): never move it based on stale knowledge.
    if (expectedSeq !== undefined && domain.status_seq !== expectedSeq) return { changed: false, domain, reason: 'stale' };
    return { changed: false, domain, reason: 'not_allowed' };
  }

  async function transitionWithin(tx: DatabaseTransactionConnection, domainId: string, name: DomainTransitionName, reason: string | null, options: TransitionOptions): Promise<TransitionResult> {
    const result = await transitionIn(tx, domainId, name, reason, options.organizationId, options.expectedSeq, verificationPatch(options), options.signal);
    // The move and what `verification.problem` says about it commit together (e.g. `active`
    // with the CA's earlier refusal cleared), so a reader never sees one without the other. A
    // move made (or found made) by an earlier attempt still gets the problem written.
    if (options.problem !== undefined && !result.changed && result.reason === 'already') await setProblemIn(tx, domainId, options.problem);
    return result;
  }

  function verificationPatch(options: TransitionOptions): Record<string, unknown> | undefined {
    if (options.problem === undefined && !options.verification) return undefined;
    return { ...options.verification, ...(options.problem === undefined ? {} : { problem: options.problem }) };
  }

  async function setProblemIn(conn: Pick<DatabaseTransactionConnection, 'query'>, domainId: string, problem: Problem | null): Promise<void> {
    await conn.query(sql.unsafe`
      update domains set verification = coalesce(verification, '{}'::jsonb) || jsonb_build_object('problem', ${sql.jsonb(problem as never)}::jsonb),
        updated_at = hg_now() where id = ${domainId}`);
  }

  return {
    /**
     * Inserts the domain, its first history row, the `hostname.created` event and the workflow
     * start request in ONE statement: either all exist or none. One round trip instead of six
     * (savepoint, four inserts, release) inside the create's transaction (issue 26). A hostname
     * already connected inserts nothing (`on conflict do nothing`, the partial unique index on
     * live hostnames) and is refused with DomainConflictError; no error is raised in the
     * statement, so the caller's transaction stays usable without a savepoint.
     */
    async create(input: { organizationId: string; destinationId: string; hostname: string; isApex: boolean; externalCustomerId?: string | null; widgetSessionId?: string | null }, tx?: DatabaseTransactionConnection): Promise<{ domain: DomainRow; outboxId: number }> {
      const id = newId('domain');
      const start: OutboxPayload<'start_domain'> = { domainId: id, organizationId: input.organizationId, hostname: input.hostname, isApex: input.isApex };
      // The event's data as every other event writes it (HostnameEventData): a new domain is pending_dns, with no metadata.
      const createdEvent: HostnameEventData = { id, hostname: input.hostname, status: 'pending_dns', destination_id: input.destinationId, external_customer_id: input.externalCustomerId ?? null, metadata: null };
      const created = await (tx ?? db).maybeOne(sql.type(CreatedRow)`
        with d as (
          insert into domains (id, organization_id, destination_id, hostname, is_apex, external_customer_id, widget_session_id)
          values (${id}, ${input.organizationId}, ${input.destinationId}, ${input.hostname}, ${input.isApex},
                  ${input.externalCustomerId ?? null}, ${input.widgetSessionId ?? null})
          on conflict do nothing
          returning ${columns}
        ), history as (
          insert into domain_status_history (domain_id, seq, from_status, to_status, reason)
          select d.id, 0, null, d.status, 'created' from d
        ), event as (
          insert into events (id, organization_id, kind, domain_id, data)
          select ${newId('event')}, d.organization_id, 'hostname.created', d.id,
            ${sql.jsonb(createdEvent as never)}
          from d
        ), outbox as (
          insert into workflow_outbox (kind, workflow_id, payload)
          select 'start_domain', ${domainWorkflowId(id)}, ${sql.jsonb(start as never)} from d
          returning id
        )
        select d.*, outbox.id as outbox_id from d cross join outbox`);
      if (!created) throw new DomainConflictError(input.hostname);
      const { outbox_id: outboxId, ...domain } = created;
      return { domain, outboxId };
    },

    /**
     * POST /v1/domains in ONE autocommit statement (issue 26): the destination's check and FOR SHARE
     * lock, the domain, its history row, `hostname.created`, the outbox start AND the request's
     * idempotent answer, which commit together or not at all. The transaction of `create` took five
     * round trips (BEGIN, lock, create, answer, COMMIT) and the API's CPU went mostly to them.
     *
     * The answer is rendered before the statement from `row`, the domain as it will be stored:
     * every column the API shows is given here (id, tokens, status, timestamps), none comes from
     * a column default, and test/api-domains.test.ts checks that the 201 equals a GET right after.
     * `claim`: the request's Idempotency-Key claim (the insert happens only while it is held, the
     * answer replaces it); null when the request has none.
     *
     * What it tells the caller, in the order the transactional path checks them: the destination
     * does not exist (or is deleted), it is the hostname itself (a loop), the claim is gone, the
     * hostname is taken (the live-hostname index or the wildcard exclusion constraint).
     */
    async createAnswered(input: {
      row: Pick<DomainRow, 'id' | 'organization_id' | 'destination_id' | 'hostname' | 'is_apex' | 'status' | 'status_seq' | 'external_customer_id' | 'widget_session_id' | 'ownership_token' | 'challenge_label' | 'tls_min_version' | 'created_at' | 'updated_at'>;
      claim: AnswerClaim | null;
    }): Promise<{ result: 'created'; outboxId: number } | { result: 'destination_not_found' | 'destination_loops' | 'claim_lost' | 'conflict' | 'key_exists' }> {
      const r = input.row;
      const c = input.claim;
      const start: OutboxPayload<'start_domain'> = { domainId: r.id, organizationId: r.organization_id, hostname: r.hostname, isApex: r.is_apex };
      const createdEvent: HostnameEventData = { id: r.id, hostname: r.hostname, status: r.status, destination_id: r.destination_id, external_customer_id: r.external_customer_id, metadata: null };
      // A held claim gates the insert and is replaced by the answer. A key not claimed yet is
      // inserted with its answer (a key that exists makes the statement fail: key_exists, nothing
      // written; the caller then claims it the usual way, which replays or refuses). Without a key
      // the insert is not gated and nothing is answered.
      const claimed = c?.kind === 'held'
        ? sql.fragment`select 1 from idempotency_keys where scope = ${c.scope} and key = ${c.key} and state = 'in_flight' and created_at = ${c.claimedAt}::timestamptz for update`
        : sql.fragment`select 1`;
      const answer = !c ? sql.fragment`select 1 from d`
        : c.kind === 'held'
          ? sql.fragment`update idempotency_keys set state = 'completed', response_status = ${c.status},
              response_body_enc = ${sql.binary(c.ciphertext)}, response_key_id = ${c.keyId}
            where scope = ${c.scope} and key = ${c.key} and state = 'in_flight' and created_at = ${c.claimedAt}::timestamptz and exists (select from d)
            returning 1`
          : sql.fragment`insert into idempotency_keys (scope, key, method, path, body_hash, expires_at, state, response_status, response_body_enc, response_key_id)
            select ${c.scope}, ${c.key}, ${c.method}, ${c.path}, ${sql.binary(c.bodyHash)}, hg_now() + make_interval(hours => ${RETENTION_HOURS}),
                   'completed', ${c.status}, ${sql.binary(c.ciphertext)}, ${c.keyId}
            from d
            returning 1`;
      let out;
      try {
        out = await db.one(sql.type(CreateAnsweredRow)`
        with dest as (
          select id, host from destinations where id = ${r.destination_id} and organization_id = ${r.organization_id} and deleted_at is null for share
        ), claim as (${claimed}), d as (
          insert into domains (id, organization_id, destination_id, hostname, is_apex, status, status_seq, external_customer_id, widget_session_id,
                               ownership_token, challenge_label, tls_min_version, created_at, updated_at)
          select ${r.id}, ${r.organization_id}, dest.id, ${r.hostname}, ${r.is_apex}, ${r.status}, ${r.status_seq}, ${r.external_customer_id}, ${r.widget_session_id},
                 ${r.ownership_token}, ${r.challenge_label}, ${r.tls_min_version}, ${r.created_at}::timestamptz, ${r.updated_at}::timestamptz
          from dest where dest.host <> ${r.hostname} and exists (select from claim)
          on conflict do nothing
          returning id, organization_id, status
        ), history as (
          insert into domain_status_history (domain_id, seq, from_status, to_status, reason)
          select d.id, 0, null, d.status, 'created' from d
        ), event as (
          insert into events (id, organization_id, kind, domain_id, data)
          select ${newId('event')}, d.organization_id, 'hostname.created', d.id, ${sql.jsonb(createdEvent as never)} from d
        ), outbox as (
          insert into workflow_outbox (kind, workflow_id, payload)
          select 'start_domain', ${domainWorkflowId(r.id)}, ${sql.jsonb(start as never)} from d
          returning id
        ), answered as (${answer})
        select (select host from dest) as destination_host, exists (select from claim) as claim_held,
               (select id from outbox) as outbox_id, exists (select from answered) as answered`);
      } catch (error) {
        if (c?.kind === 'new' && error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'idempotency_keys_pkey') return { result: 'key_exists' };
        throw error;
      }
      if (out.destination_host === null) return { result: 'destination_not_found' };
      if (out.destination_host === r.hostname) return { result: 'destination_loops' };
      if (!out.claim_held) return { result: 'claim_lost' };
      if (out.outbox_id === null) return { result: 'conflict' };
      // Inserted under the claim's lock: its answer was written in the same statement.
      if (!out.answered) throw new Error(`domain ${r.id} was created without its idempotent answer`);
      return { result: 'created', outboxId: out.outbox_id };
    },

    /**
     * PATCH /v1/domains/{id} in the caller's transaction: locks the row, refuses a deleting or
     * deleted domain, checks a new destination is the organization's (locked FOR SHARE against a
     * concurrent delete), writes the fields given and appends `hostname.updated` whose data names
     * the fields that changed (`changes`). A patch that changes nothing appends no event.
     */
    async update(tx: DatabaseTransactionConnection, organizationId: string, id: string, patch: DomainPatch): Promise<UpdateResult> {
      const current = await tx.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${id} and organization_id = ${organizationId} for update`);
      if (!current) return { result: 'not_found', domain: null };
      if (current.status === 'deleting' || current.status === 'deleted') return { result: 'deleted', domain: current };
      if (patch.destinationId !== undefined && patch.destinationId !== current.destination_id) {
        const host = await tx.maybeOneFirst(sql.type(HostRow)`select host from destinations where id = ${patch.destinationId} and organization_id = ${organizationId} and deleted_at is null for share`);
        if (host === null) return { result: 'destination_not_found', domain: current };
        // The edge would proxy the hostname's requests to itself (as at creation: connect-hostname.ts).
        if (host === current.hostname || wildcardCovers(current.hostname, host)) return { result: 'destination_loops', domain: current };
      }
      const sets: ReturnType<typeof sql.fragment>[] = [];
      const changed: string[] = [];
      const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
      const json = (v: unknown) => (v === null ? null : sql.jsonb(v as never));
      if (patch.destinationId !== undefined && patch.destinationId !== current.destination_id) { sets.push(sql.fragment`destination_id = ${patch.destinationId}`); changed.push('destination_id'); }
      if (patch.metadata !== undefined && !same(patch.metadata, current.metadata)) { sets.push(sql.fragment`metadata = ${json(patch.metadata)}`); changed.push('metadata'); }
      if (patch.redirect !== undefined && !same(patch.redirect, current.redirect)) { sets.push(sql.fragment`redirect = ${json(patch.redirect)}`); changed.push('redirect'); }
      if (patch.externalCustomerId !== undefined && patch.externalCustomerId !== current.external_customer_id) { sets.push(sql.fragment`external_customer_id = ${patch.externalCustomerId}`); changed.push('external_customer_id'); }
      if (patch.tlsMinVersion !== undefined && patch.tlsMinVersion !== current.tls_min_version) { sets.push(sql.fragment`tls_min_version = ${patch.tlsMinVersion}`); changed.push('tls'); }
      if (patch.hsts !== undefined && !same(patch.hsts, current.hsts)) { sets.push(sql.fragment`hsts = ${json(patch.hsts)}`); if (!changed.includes('tls')) changed.push('tls'); }
      if (sets.length === 0) return { result: 'updated', domain: current, changed };
      const domain = await tx.one(sql.type(Domain)`update domains set ${sql.join(sets, sql.fragment`, `)}, updated_at = hg_now() where id = ${id} returning ${columns}`);
      await appendEvent(tx, organizationId, 'hostname.updated', { ...eventData(domain), changes: changed });
      return { result: 'updated', domain, changed };
    },

    /** Sets the redirect of a domain just created (also_connect's second hostname) in the caller's transaction. */
    async setRedirect(tx: DatabaseTransactionConnection, id: string, redirect: RedirectSetting): Promise<DomainRow> {
      return tx.one(sql.type(Domain)`update domains set redirect = ${sql.jsonb(redirect as never)} where id = ${id} returning ${columns}`);
    },

    /** Whether the organization has this hostname connected (not deleting or deleted): a redirect may point at it. */
    async ownsHostname(organizationId: string, hostname: string): Promise<boolean> {
      return db.exists(sql.unsafe`select 1 from domains where organization_id = ${organizationId} and hostname = ${hostname} and status not in ('deleting', 'deleted')`);
    },

    async get(organizationId: string, id: string): Promise<DomainRow | null> {
      return db.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${id} and organization_id = ${organizationId}`);
    },

    /** `get` with the newest live certificate's facts, in one statement. */
    async getWithFacts(organizationId: string, id: string): Promise<{ domain: DomainRow; facts: CertificateFacts | null } | null> {
      const found = await db.maybeOne(sql.type(WithFactsRow)`select ${columns}, newest.* from domains ${newestCertificate} where id = ${id} and organization_id = ${organizationId}`);
      return found && splitFacts(found);
    },

    /**
     * Why a create of `hostname` met the wildcard exclusion constraint (migration 018): the live
     * name of another organization that a wildcard covers or that covers it; null when none (the
     * conflict was the name itself). Read after the refusal, only to word the answer.
     */
    async wildcardOverlap(organizationId: string, hostname: string): Promise<{ kind: 'covered_by_wildcard' | 'covers_hostname'; hostname: string } | null> {
      const wildcard = hostname.startsWith('*.');
      const parent = hostname.slice(hostname.indexOf('.') + 1);
      const other = await db.maybeOneFirst(sql.type(HostnameRow)`
        select hostname from domains where cover_parent = ${parent} and cover_wildcard = ${wildcard ? 0 : 1}
          and organization_id <> ${organizationId} and status <> 'deleted' order by hostname limit 1`);
      return other === null ? null : { kind: wildcard ? 'covers_hostname' : 'covered_by_wildcard', hostname: other };
    },

    /** Whether any organization has this hostname connected (not deleted): Hostgate serves it. */
    async isConnected(hostname: string): Promise<boolean> {
      return db.exists(sql.unsafe`select 1 from domains where hostname = ${hostname} and status <> 'deleted'`);
    },

    async getById(id: string): Promise<DomainRow | null> {
      return db.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${id}`);
    },

    /** A page of the organization's domains, newest first, each with its newest live certificate's facts. */
    async list<U>(organizationId: string, filters: DomainFilters, page: { limit: number; cursor?: string | undefined }, map: (d: DomainRow, facts: CertificateFacts | null) => U): Promise<Page<U>> {
      const conditions = [sql.fragment`organization_id = ${organizationId}`, afterCursor(page.cursor)];
      if (filters.status) conditions.push(sql.fragment`status = ${filters.status}`);
      if (filters.hostname) conditions.push(sql.fragment`hostname = ${filters.hostname}`);
      if (filters.externalCustomerId) conditions.push(sql.fragment`external_customer_id = ${filters.externalCustomerId}`);
      // Containment uses the GIN index (migration 013).
      if (filters.metadata) conditions.push(sql.fragment`metadata @> ${sql.jsonb({ [filters.metadata.key]: filters.metadata.value })}`);
      const rows = await db.any(sql.type(WithFactsRow)`
        select ${columns}, newest.* from domains ${newestCertificate} where ${sql.join(conditions, sql.fragment` and `)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, (r) => { const { domain, facts } = splitFacts(r); return map(domain, facts); });
    },

    /** Makes a named transition if the lifecycle allows it; records history and its event. */
    async transition(domainId: string, name: DomainTransitionName, reason: string | null, options: TransitionOptions = {}): Promise<TransitionResult> {
      // The move (with its verification patch and its queued signal) is one statement, atomic by itself.
      const result = await transitionIn(db, domainId, name, reason, options.organizationId, options.expectedSeq, verificationPatch(options), options.signal);
      if (options.problem !== undefined && !result.changed && result.reason === 'already') await setProblemIn(db, domainId, options.problem);
      return result;
    },

    /** `transition` inside the caller's transaction. */
    transitionWithin(tx: DatabaseTransactionConnection, domainId: string, name: DomainTransitionName, reason: string | null, options: TransitionOptions = {}): Promise<TransitionResult> {
      return transitionWithin(tx, domainId, name, reason, options);
    },

    /** Shows what blocks progress (e.g. the CA refused) in `verification.problem`; null clears it. */
    async setProblem(domainId: string, problem: Problem | null, conn: Pick<DatabaseTransactionConnection, 'query'> = db): Promise<void> {
      await setProblemIn(conn, domainId, problem);
    },

    async markWorkflowStarted(domainId: string): Promise<void> {
      await db.query(sql.unsafe`update domains set workflow_started_at = coalesce(workflow_started_at, hg_now()) where id = ${domainId}`);
    },

    /**
     * Records a verify request and queues the signal (coalesced with one already waiting);
     * returns null when the domain is not this org's, or is deleting or deleted (nothing left to
     * verify: the caller tells which).
     */
    async requestVerify(organizationId: string, domainId: string): Promise<DomainRow | null> {
      // One statement (the request and the queued signal commit together), no transaction round trips.
      return db.maybeOne(sql.type(Domain)`
        with requested as (
          update domains set verify_requested_at = hg_now(), updated_at = hg_now()
          where id = ${domainId} and organization_id = ${organizationId} and status not in ('deleting', 'deleted') returning ${columns}
        ), queued as (
          ${domainSignalInsert(sql.fragment`select ${domainWorkflowId(domainId)}::text as w from requested`, { signal: 'verify' })}
        )
        select ${columns} from requested`);
    },

    /**
     * Live domains that never got a start request: the reconciler's work list. A start that was
     * dispatched counts (its workflow exists even while its first task waits in Temporal's queue);
     * re-queueing those only added load to Temporal when it was busiest (bench:lifecycle).
     */
    async withoutWorkflow(olderThanSeconds: number, limit: number): Promise<readonly DomainRow[]> {
      return db.any(sql.type(Domain)`
        select ${columns} from domains d
        where workflow_started_at is null and status <> 'deleted' and created_at < hg_now() - make_interval(secs => ${olderThanSeconds})
          and not exists (select 1 from workflow_outbox o where o.workflow_id = 'domain/' || d.id and o.kind = 'start_domain')
        order by created_at limit ${limit}`);
    },
  };
}
