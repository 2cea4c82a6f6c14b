import { UniqueIntegrityConstraintViolationError, type DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import { canTransition, eventForTransition, type DomainStatus, domainStatuses } from '../../model/domain-status.ts';
import { newId } from '../ids.ts';
import { afterCursor, toPage, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';
import { appendEvent, type HostnameEventData } from './events.ts';
import { workflowOutboxRepository } from './workflow-outbox.ts';

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
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type DomainRow = Static<typeof DomainRow>;
const Domain = row(DomainRow);
const columns = sql.fragment`id, organization_id, destination_id, hostname, is_apex, status, status_seq, external_customer_id,
  widget_session_id, verification, verify_requested_at, workflow_started_at, created_at, updated_at`;

export class DomainConflictError extends Error {
  constructor(hostname: string) { super(`${hostname} is already connected`); }
}

export function domainWorkflowId(domainId: string): string {
  return `domain/${domainId}`;
}

function eventData(d: DomainRow): HostnameEventData {
  return { id: d.id, hostname: d.hostname, status: d.status, destination_id: d.destination_id, external_customer_id: d.external_customer_id };
}

export interface DomainFilters { status?: DomainStatus | undefined; hostname?: string | undefined; externalCustomerId?: string | undefined }

export type TransitionResult = { changed: true; domain: DomainRow; from: DomainStatus } | { changed: false; domain: DomainRow | null; reason: 'not_found' | 'not_allowed' | 'already' | 'stale' };

export function domainsRepository(db: Db) {
  const outbox = workflowOutboxRepository(db);

  async function transitionIn(tx: DatabaseTransactionConnection, domainId: string, to: DomainStatus, reason: string | null, organizationId?: string, expectedSeq?: number): Promise<TransitionResult> {
    const orgFilter = organizationId ? sql.fragment`and organization_id = ${organizationId}` : sql.fragment``;
    const current = await tx.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${domainId} ${orgFilter} for update`);
    if (!current) return { changed: false, domain: null, reason: 'not_found' };
    if (current.status === to) return { changed: false, domain: current, reason: 'already' };
    // The writer saw an older state than the row now has (a retried or late activity, or the API
    // moved the domain meanwhile): never move it based on stale knowledge.
    if (expectedSeq !== undefined && current.status_seq !== expectedSeq) return { changed: false, domain: current, reason: 'stale' };
    if (!canTransition(current.status, to)) return { changed: false, domain: current, reason: 'not_allowed' };
    const updated = await tx.one(sql.type(Domain)`
      update domains set status = ${to}, status_seq = status_seq + 1, updated_at = hg_now(),
        deleted_at = case when ${to} = 'deleted' then hg_now() else deleted_at end
      where id = ${domainId} returning ${columns}`);
    await tx.query(sql.unsafe`
      insert into domain_status_history (domain_id, seq, from_status, to_status, reason)
      values (${domainId}, ${updated.status_seq}, ${current.status}, ${to}, ${reason})`);
    const kind = eventForTransition(current.status, to);
    if (kind) await appendEvent(tx, updated.organization_id, kind, eventData(updated));
    return { changed: true, domain: updated, from: current.status };
  }

  return {
    /**
     * Inserts the domain, its first history row, the `hostname.created` event and the workflow
     * start request in one transaction: either all exist or none.
     */
    async create(input: { organizationId: string; destinationId: string; hostname: string; isApex: boolean; externalCustomerId?: string | null; widgetSessionId?: string | null }, tx?: DatabaseTransactionConnection): Promise<{ domain: DomainRow; outboxId: number }> {
      const run = async (t: DatabaseTransactionConnection) => {
        const id = newId('domain');
        let domain: DomainRow;
        try {
          domain = await t.one(sql.type(Domain)`
            insert into domains (id, organization_id, destination_id, hostname, is_apex, external_customer_id, widget_session_id)
            values (${id}, ${input.organizationId}, ${input.destinationId}, ${input.hostname}, ${input.isApex},
                    ${input.externalCustomerId ?? null}, ${input.widgetSessionId ?? null})
            returning ${columns}`);
        } catch (error) {
          if (error instanceof UniqueIntegrityConstraintViolationError) throw new DomainConflictError(input.hostname);
          throw error;
        }
        await t.query(sql.unsafe`insert into domain_status_history (domain_id, seq, from_status, to_status, reason) values (${id}, 0, null, 'pending_dns', 'created')`);
        await appendEvent(t, input.organizationId, 'hostname.created', eventData(domain));
        const outboxId = await outbox.enqueue(t, 'start_domain', domainWorkflowId(id), { domainId: id, organizationId: input.organizationId, hostname: input.hostname });
        return { domain, outboxId };
      };
      // A savepoint when nested, so a conflict does not poison the caller's transaction.
      return tx ? tx.transaction(run) : db.transaction(run);
    },

    async get(organizationId: string, id: string): Promise<DomainRow | null> {
      return db.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${id} and organization_id = ${organizationId}`);
    },

    async getById(id: string): Promise<DomainRow | null> {
      return db.maybeOne(sql.type(Domain)`select ${columns} from domains where id = ${id}`);
    },

    async list<U>(organizationId: string, filters: DomainFilters, page: { limit: number; cursor?: string | undefined }, map: (d: DomainRow) => U): Promise<Page<U>> {
      const conditions = [sql.fragment`organization_id = ${organizationId}`, afterCursor(page.cursor)];
      if (filters.status) conditions.push(sql.fragment`status = ${filters.status}`);
      if (filters.hostname) conditions.push(sql.fragment`hostname = ${filters.hostname}`);
      if (filters.externalCustomerId) conditions.push(sql.fragment`external_customer_id = ${filters.externalCustomerId}`);
      const rows = await db.any(sql.type(Domain)`
        select ${columns} from domains where ${sql.join(conditions, sql.fragment` and `)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, map);
    },

    /** Moves a domain if the lifecycle allows it; records history and the matching event. */
    async transition(domainId: string, to: DomainStatus, reason: string | null, options: { organizationId?: string; signal?: Record<string, unknown>; expectedSeq?: number } = {}): Promise<TransitionResult> {
      return db.transaction(async (tx) => {
        const result = await transitionIn(tx, domainId, to, reason, options.organizationId, options.expectedSeq);
        if (result.changed && options.signal) await outbox.enqueue(tx, 'signal_domain', domainWorkflowId(domainId), options.signal);
        return result;
      });
    },

    async markWorkflowStarted(domainId: string): Promise<void> {
      await db.query(sql.unsafe`update domains set workflow_started_at = coalesce(workflow_started_at, hg_now()) where id = ${domainId}`);
    },

    /** Records a verify request and queues the signal; returns null when the domain is not this org's. */
    async requestVerify(organizationId: string, domainId: string): Promise<DomainRow | null> {
      return db.transaction(async (tx) => {
        const domain = await tx.maybeOne(sql.type(Domain)`
          update domains set verify_requested_at = hg_now(), updated_at = hg_now()
          where id = ${domainId} and organization_id = ${organizationId} returning ${columns}`);
        if (domain && domain.status !== 'deleted') await outbox.enqueue(tx, 'signal_domain', domainWorkflowId(domainId), { signal: 'verify' });
        return domain;
      });
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
