// The transition table (model/domain-status.ts) is what the database applies: every named
// transition, tried from every status, moves the row exactly when the table allows it, and then
// appends one history row and the table's event; a refused one leaves no trace.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { DomainConflictError, domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { canTransition, domainStatuses, domainTransitionNames, domainTransitions } from '../model/domain-status.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

describe('domain transitions', () => {
  let database: TestDatabase;
  let organizationId: string;
  let destinationId: string;
  let n = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    organizationId = (await organizationsRepository(database.db).create({ name: 'transitions' })).id;
    destinationId = (await destinationsRepository(database.db).create({ organizationId, url: 'https://app.example.com', host: 'app.example.com', port: 443 })).id;
  });
  afterAll(async () => { await database?.drop(); });

  const cases = domainStatuses.flatMap((from) => domainTransitionNames.map((name) => [from, name] as const));

  it.each(cases)('from %s, %s', async (from, name) => {
    const db = database.db;
    const domains = domainsRepository(db);
    const { domain } = await domains.create({ organizationId, destinationId, hostname: `t${++n}.transitions.example`, isApex: false });
    // Put the row where the case starts (bypassing the table on purpose: this is the fixture).
    await db.query(sql.unsafe`update domains set status = ${from}, status_seq = 5 where id = ${domain.id}`);
    const traces = async () => db.one(sql.unsafe`
      select (select count(*)::int from domain_status_history where domain_id = ${domain.id}) as history,
             (select coalesce(array_agg(kind order by created_at), '{}') from events where domain_id = ${domain.id} and kind <> 'hostname.created') as events`) as Promise<{ history: number; events: string[] }>;
    const before = await traces();

    const result = await domains.transition(domain.id, name, 'test', { expectedSeq: 5 });

    const { to, event } = domainTransitions[name];
    const after = await traces();
    if (canTransition(from, name) && from !== to) {
      expect(result).toMatchObject({ changed: true, from, domain: { status: to, status_seq: 6 } });
      expect(after.history).toBe(before.history + 1);
      expect(after.events).toEqual(event ? [event] : []);
    } else {
      expect(result).toMatchObject({ changed: false, reason: from === to ? 'already' : 'not_allowed', domain: { status: from, status_seq: 5 } });
      expect(after).toEqual(before);
    }
  });

  it('a writer that saw an older sequence number is refused (stale), whatever the transition', async () => {
    const domains = domainsRepository(database.db);
    const { domain } = await domains.create({ organizationId, destinationId, hostname: 'stale.transitions.example', isApex: false });
    expect((await domains.transition(domain.id, 'dns_verified', 'test', { expectedSeq: 0 })).changed).toBe(true);
    const stale = await domains.transition(domain.id, 'gave_up', 'test', { expectedSeq: 0 });
    expect(stale).toMatchObject({ changed: false, reason: 'stale', domain: { status: 'pending_certificate', status_seq: 1 } });
  });

  it('every status but deleted can be left, and every transition has a way in', () => {
    for (const status of domainStatuses) {
      const out = domainTransitionNames.filter((name) => canTransition(status, name));
      expect([status, out.length > 0]).toEqual([status, status !== 'deleted']);
    }
    const targets = new Set(domainTransitionNames.map((name) => domainTransitions[name].to));
    expect([...domainStatuses].filter((s) => s !== 'pending_dns' && !targets.has(s))).toEqual([]);
  });

  it('create: the domain, its first history row, hostname.created and the outbox start, in one statement (issue 26)', async () => {
    const db = database.db;
    const hostname = `c${++n}.transitions.example`;
    const { domain, outboxId } = await domainsRepository(db).create({ organizationId, destinationId, hostname, isApex: false, externalCustomerId: 'cust-1' });
    expect(domain).toMatchObject({ organization_id: organizationId, destination_id: destinationId, hostname, status: 'pending_dns', status_seq: 0, external_customer_id: 'cust-1' });
    const traces = await db.one(sql.unsafe`
      select (select json_agg(json_build_object('seq', seq, 'from', from_status, 'to', to_status, 'reason', reason)) from domain_status_history where domain_id = ${domain.id}) as history,
             (select json_agg(json_build_object('kind', kind, 'organization_id', organization_id, 'data', data)) from events where domain_id = ${domain.id}) as events,
             (select json_agg(json_build_object('id', id, 'kind', kind, 'workflow_id', workflow_id, 'payload', payload)) from workflow_outbox where workflow_id = ${`domain/${domain.id}`} or id = ${outboxId}) as outbox`);
    expect(traces).toEqual({
      history: [{ seq: 0, from: null, to: 'pending_dns', reason: 'created' }],
      events: [{ kind: 'hostname.created', organization_id: organizationId, data: { id: domain.id, hostname, status: 'pending_dns', destination_id: destinationId, external_customer_id: 'cust-1', metadata: null } }],
      outbox: [{ id: outboxId, kind: 'start_domain', workflow_id: expect.any(String), payload: { domainId: domain.id, organizationId, hostname, isApex: false } }],
    });
  });

  it('create: a hostname already connected → DomainConflictError, nothing written, and the caller\'s transaction goes on (no savepoint needed)', async () => {
    const db = database.db;
    const hostname = `c${++n}.transitions.example`;
    await domainsRepository(db).create({ organizationId, destinationId, hostname, isApex: false });
    const after = await db.transaction(async (tx) => {
      await expect(domainsRepository(db).create({ organizationId, destinationId, hostname, isApex: false }, tx)).rejects.toBeInstanceOf(DomainConflictError);
      return tx.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = ${hostname}`);
    });
    expect(after).toBe(1);
  });
});
