// What the phases do to domains and how they watch them: create and verify through the API (as a
// vendor would), read progress from Postgres and the Temporal task queue (as the bench sees it).
import proto from '@temporalio/proto';
import { checkInterrupted, errorText, progress, sleep } from '../support/run.ts';
import { apiClient } from '../support/setup.ts';
import { fixed, int } from './figures.ts';
import type { LifecycleStack } from './stack.ts';

// @temporalio/proto is CommonJS whose exports Node cannot detect statically.
const { temporal } = proto;

type DomainJson = { id: string };
export interface DomainPoll { id: string; status: string; problem: string | null; dns_ok_at: number | null; active_at: number | null }

export type Domains = ReturnType<typeof domainsOf>;

export function domainsOf({ apiOrigin, secret, destinationId, sql, connection, namespace, taskQueue }: LifecycleStack) {
  const { api } = apiClient(apiOrigin, secret);
  const createDomain = async (hostname: string) =>
    (await api<{ data: DomainJson }>('POST', '/v1/domains', { hostname, destination_id: destinationId }, { 'idempotency-key': `create-${hostname}` })).data.id;
  const verify = (id: string, n: number) => api('POST', `/v1/domains/${id}/verify`, undefined, { 'idempotency-key': `verify-${id}-${n}` });

  /** Status, problem code, and when the domain's DNS was verified and it became active (ms since the epoch). */
  async function poll(ids: readonly string[]): Promise<DomainPoll[]> {
    const { rows } = await sql.query<DomainPoll>(`
      select d.id, d.status, d.verification->'problem'->>'code' as problem,
        (select (extract(epoch from h.created_at) * 1000)::float8 from domain_status_history h
          where h.domain_id = d.id and h.to_status = 'pending_certificate' order by h.seq desc limit 1) as dns_ok_at,
        (select (extract(epoch from h.created_at) * 1000)::float8 from domain_status_history h
          where h.domain_id = d.id and h.to_status = 'active' order by h.seq limit 1) as active_at
      from domains d where d.id = any($1::text[])`, [ids]);
    return rows;
  }

  /** Workflow tasks waiting in Temporal for the worker on the task queue (not the sticky queue). */
  async function backlog(): Promise<string> {
    try {
      const r = await connection.workflowService.describeTaskQueue({
        namespace, taskQueue: { name: taskQueue }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, reportStats: true,
      });
      const count = Number(r.stats?.approximateBacklogCount?.toString() ?? 0);
      const age = Number(r.stats?.approximateBacklogAge?.seconds?.toString() ?? 0);
      return `Temporal backlog ${int(count)} workflow tasks (oldest ${age} s, dispatching ${fixed(r.stats?.tasksDispatchRate ?? Number.NaN, 1)}/s)`;
    } catch (error) {
      return `workflow-task backlog unknown (${errorText(error)})`;
    }
  }

  /** start_domain outbox rows beyond one per domain: the worker's reconciler re-queued them. */
  const requeued = async () => int((await sql.query<{ extra: number }>(`
    select (count(*) - count(distinct workflow_id))::int as extra from workflow_outbox where kind = 'start_domain'`)).rows[0]!.extra);

  /**
   * Waits until every domain has had a DNS check (and, with `attached`, its workflow has run its
   * first task: since the DNS checker makes first checks without Temporal, a check no longer
   * implies a running workflow); returns how many found nxdomain. An empty label logs no progress.
   */
  async function waitFirstChecks(ids: readonly string[], capMs: number, pollMs: number, label: string, options: { attached?: boolean } = {}): Promise<number> {
    const started = Date.now();
    let logged = Date.now();
    for (;;) {
      checkInterrupted();
      const { rows } = await sql.query<{ checked: number; nx: number; started: number }>(`
        select count(*) filter (where verification->>'checked_at' is not null)::int as checked,
               count(*) filter (where verification->'problem'->>'code' = 'nxdomain')::int as nx,
               count(*) filter (where workflow_started_at is not null)::int as started
        from domains where id = any($1::text[])`, [ids]);
      const r = rows[0]!;
      if (r.checked === ids.length && (!options.attached || r.started === ids.length)) return r.nx;
      if (Date.now() - started > capMs) throw new Error(`${label}: only ${r.checked} of ${ids.length} domains had a DNS check${options.attached ? ` and ${r.started} an attached workflow` : ''} after ${capMs / 1000} s`);
      if (label && Date.now() - logged >= (ids.length > 1000 ? 15_000 : 2000)) {
        progress(`  ${label}: ${int(r.started)} workflows attached, ${int(r.checked)} / ${int(ids.length)} first DNS checks done; ${await backlog()}; ${await requeued()} start rows re-queued by the reconciler`);
        logged = Date.now();
      }
      await sleep(pollMs);
    }
  }

  return { createDomain, verify, poll, backlog, requeued, waitFirstChecks };
}
