// The DNS checker (worker/dns-checker.ts, issue 26) on real services: its schedule in Postgres
// (a row per pending_dns domain kept by a trigger, claimed in batches, the backoff curve), two
// checkers sharing it, and the end to end path — a domain whose DNS becomes right is verified
// within its next slot, no verify needed, and its workflow keeps no timer per check.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDnsCheckActivities } from '../activities/dns-check.ts';
import { sql } from '../db/pool.ts';
import { dnsScheduleRepository } from '../db/repositories/dns-schedule.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { nextCheckDelay } from '../model/dns-check-schedule.ts';
import { DNS_BACKOFF_CAP } from '../model/domain-backoff.ts';
import { dnsCheckerChecks, dnsCheckerClaimed, dnsCheckerMoves, dnsCheckerSignals } from '../metrics/dns-checker.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { createDnsChecker, type DnsCheckerDeps } from '../worker/dns-checker.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { client } from './support/http.ts';
import { activityRuns, historyOfAllRuns } from './support/history.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('DNS checker', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let destinationId: string;
  const logger = createLogger('silent', 'dns-checker-test');

  beforeAll(async () => {
    acme = await startAcmeStack();
    t = await createTestApp({ config: acme.configOverrides });
    await acme.serveChallenges(t.database.db);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id;
  });
  afterAll(async () => {
    await t?.close();
    await acme?.close();
  });

  const schedule = () => dnsScheduleRepository(t.database.db);
  const create = async (hostname: string) => {
    const res = await api.post('/v1/domains', { hostname, destination_id: destinationId });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: string };
  };
  /** A checker over the test database with the real check and the real Temporal signal. */
  const checker = (overrides: Partial<DnsCheckerDeps> = {}) => {
    const dns = createDnsCheckActivities({ db: t.database.db, config: t.config });
    return createDnsChecker({
      db: t.database.db, logger, concurrency: 5,
      check: dns.checkScheduled,
      dispatchSignals: (ids) => t.dispatcher.dispatch(ids),
      ...overrides,
    });
  };
  // The domains these tests create have no workflow running (no worker in the first tests); the
  // outbox holds their starts. Other tests' rows stay out of the way by being pushed far ahead.
  const parkOthers = async (keep: readonly string[]) => {
    await t.database.db.query(sql.unsafe`update dns_check_schedule set next_check_at = hg_now() + interval '1 day' where domain_id <> all(${sql.array([...keep], 'text')})`);
  };

  /** The checker's counters in this process's registry (metrics/dns-checker.ts). */
  const counters = async () => {
    const values = async (m: { get(): Promise<{ values: { value: number; labels: Partial<Record<string, string | number>> }[] }> }, label?: string) =>
      Object.fromEntries((await m.get()).values.map((v) => [label ? String(v.labels[label]) : 'all', v.value]));
    const checks = await values(dnsCheckerChecks, 'outcome');
    const signals = await values(dnsCheckerSignals, 'outcome');
    return {
      checks: { right: checks.right ?? 0, not_yet: checks.not_yet ?? 0, error: checks.error ?? 0, gone: checks.gone ?? 0 },
      signals: { sent: signals.sent ?? 0, failed: signals.failed ?? 0, left_to_outbox: signals.left_to_outbox ?? 0 },
      moves: (await values(dnsCheckerMoves)).all ?? 0,
      claimed: (await values(dnsCheckerClaimed)).all ?? 0,
    };
  };

  it('keeps a row per pending_dns domain, due at once on create; a check stores what it found and sets the next slot on the backoff curve', async () => {
    const d = await create('shop.schedule-one.test');
    await parkOthers([d.id]);
    const first = await schedule().slotOf(d.id);
    expect(first).not.toBeNull();
    expect(first!.checks).toBe(0);
    expect(first!.nextCheckAt.getTime()).toBeLessThanOrEqual(Date.now() + 50);

    // A fixed jitter (random() = 0.5: none) makes the curve exact: 5 s, 10 s, 20 s …
    const c = checker({ random: () => 0.5 });
    const before = await counters();
    expect(await c.runOnce()).toBe(1);
    const read = await domainsRepository(t.database.db).getById(d.id);
    expect((read!.verification as { problem: { code: string } }).problem.code).toBe('nxdomain');
    const after = await counters();
    expect(after.checks.not_yet - before.checks.not_yet).toBe(1);
    expect(after.claimed - before.claimed).toBe(1);
    expect(after.moves - before.moves).toBe(0);
    const afterOne = await schedule().slotOf(d.id);
    expect(afterOne!.checks).toBe(1);
    expect(afterOne!.nextCheckAt.getTime() - Date.now()).toBeGreaterThan(5_000 - 1_000);
    expect(afterOne!.nextCheckAt.getTime() - Date.now()).toBeLessThanOrEqual(5_000);
    // Not due: nothing to do.
    expect(await c.runOnce()).toBe(0);

    expect(await schedule().dueNow(d.id)).toBe(true);
    expect(await c.runOnce()).toBe(1);
    const afterTwo = await schedule().slotOf(d.id);
    expect(afterTwo!.checks).toBe(2);
    expect(afterTwo!.nextCheckAt.getTime() - Date.now()).toBeGreaterThan(10_000 - 1_000);
    expect(afterTwo!.nextCheckAt.getTime() - Date.now()).toBeLessThanOrEqual(10_000);
    // The curve caps at an hour.
    expect(nextCheckDelay(30, () => 0.5)).toBe(DNS_BACKOFF_CAP);

    // Leaving pending_dns drops the row; coming back starts the curve over, due at once.
    const domains = domainsRepository(t.database.db);
    const suspended = await domains.transition(d.id, 'suspend', 'test', { expectedSeq: read!.status_seq });
    expect(suspended.changed).toBe(true);
    expect(await schedule().slotOf(d.id)).toBeNull();
    await domains.transition(d.id, 'resume', 'test', { expectedSeq: suspended.domain!.status_seq });
    const back = await schedule().slotOf(d.id);
    expect(back).toMatchObject({ checks: 0 });
    expect(back!.nextCheckAt.getTime()).toBeLessThanOrEqual(Date.now() + 50);
  });

  it('DNS right (here before any workflow started): the checker moves the domain to pending_certificate, and its row goes', async () => {
    // Straight into Postgres: no start in the outbox, so no workflow to signal ('not_running').
    const org = await organizationsRepository(t.database.db).create({ name: 'early' });
    const dst = await destinationsRepository(t.database.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const { domain: d } = await domainsRepository(t.database.db).create({ organizationId: org.id, destinationId: dst.id, hostname: 'shop.schedule-early.test', isApex: false });
    await parkOthers([d.id]);
    acme.dns.set('shop.schedule-early.test', [{ type: 'CNAME', value: EDGE }]);
    expect(await checker().runOnce()).toBe(1);
    const moved = await domainsRepository(t.database.db).getById(d.id);
    expect(moved!.status).toBe('pending_certificate');
    expect((moved!.verification as { problem: unknown }).problem).toBeNull();
    expect(await schedule().slotOf(d.id)).toBeNull();
  });

  it('DNS right but Temporal not answering: the verify, committed with the move, waits in the outbox for the sweep', async () => {
    const d = await create('shop.schedule-outbox.test');
    await parkOthers([d.id]);
    acme.dns.set('shop.schedule-outbox.test', [{ type: 'CNAME', value: EDGE }]);
    const before = await counters();
    // The row exists before anything is sent: the dispatcher is handed its id, and fails.
    const handed: number[][] = [];
    const c = checker({
      dispatchSignals: async (ids) => {
        handed.push([...ids]);
        const rows = await t.database.db.anyFirst(sql.unsafe`select payload->>'signal' from workflow_outbox where id = any(${sql.array([...ids], 'int8')}) and dispatched_at is null`);
        expect(rows).toEqual(['verify']);
        throw new Error('UNAVAILABLE: Temporal away');
      },
    });
    expect(await c.runOnce()).toBe(1);
    expect((await domainsRepository(t.database.db).getById(d.id))!.status).toBe('pending_certificate');
    const queued = await t.database.db.any(sql.unsafe`
      select id::int, payload->>'signal' as signal, dispatched_at from workflow_outbox where workflow_id = ${`domain/${d.id}`} and kind = 'signal_domain'`);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ signal: 'verify', dispatched_at: null });
    expect(handed).toEqual([[(queued[0] as { id: number }).id]]);
    const after = await counters();
    expect(after.moves - before.moves).toBe(1);
    expect(after.signals.failed - before.signals.failed).toBe(1);
    expect(after.signals.sent - before.signals.sent).toBe(0);
  });

  it('DNS right with the API\'s verify already waiting in the outbox: the move queues no second one and the checker sends the waiting one', async () => {
    const org = await organizationsRepository(t.database.db).create({ name: 'coalesced' });
    const dst = await destinationsRepository(t.database.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const domains = domainsRepository(t.database.db);
    const { domain: d, outboxId: start } = await domains.create({ organizationId: org.id, destinationId: dst.id, hostname: 'shop.schedule-coalesced.test', isApex: false });
    // The start went out (a verify waits behind a pending start); the API's verify did not yet.
    await t.database.db.query(sql.unsafe`update workflow_outbox set dispatched_at = hg_now() where id = ${start}`);
    expect(await domains.requestVerify(org.id, d.id)).not.toBeNull();
    const waiting = await t.database.db.oneFirst(sql.unsafe`select id::int from workflow_outbox where workflow_id = ${`domain/${d.id}`} and kind = 'signal_domain'`) as number;
    await parkOthers([d.id]);
    acme.dns.set('shop.schedule-coalesced.test', [{ type: 'CNAME', value: EDGE }]);
    const handed: number[] = [];
    const c = checker({ dispatchSignals: async (ids) => { handed.push(...ids); return { dispatched: ids.length, failed: 0 }; } });
    expect(await c.runOnce()).toBe(1);
    expect((await domains.getById(d.id))!.status).toBe('pending_certificate');
    expect(await t.database.db.anyFirst(sql.unsafe`select id::int from workflow_outbox where workflow_id = ${`domain/${d.id}`} and kind = 'signal_domain'`)).toEqual([waiting]);
    expect(handed).toEqual([waiting]);
  });

  it('DNS right: the checker wakes the workflow only when its own check made the move, not after the workflow\'s verify moved the row first', async () => {
    const raced = await create('shop.schedule-raced.test');
    const own = await create('shop.schedule-own.test');
    await parkOthers([raced.id, own.id]);
    acme.dns.set('shop.schedule-raced.test', [{ type: 'CNAME', value: EDGE }]);
    acme.dns.set('shop.schedule-own.test', [{ type: 'CNAME', value: EDGE }]);
    const dns = createDnsCheckActivities({ db: t.database.db, config: t.config });
    const domains = domainsRepository(t.database.db);
    const handed: number[] = [];
    const results = new Map<string, { ok: boolean; moved?: boolean; outboxId?: number | null }>();
    const c = checker({
      // The verify burst's race: the row is claimed, then the workflow's own check moves it
      // (same transition, same expected seq) before the checker's lookup ends.
      check: async (domain) => {
        if (domain.domainId === raced.id) expect((await domains.transition(raced.id, 'dns_verified', 'the workflow\'s verify', { expectedSeq: domain.seq })).changed).toBe(true);
        const result = await dns.checkScheduled(domain);
        if (result !== 'gone') results.set(domain.domainId, result);
        return result;
      },
      dispatchSignals: async (ids) => { handed.push(...ids); return { dispatched: ids.length, failed: 0 }; },
    });
    expect(await c.runOnce()).toBe(2);
    expect(results.get(raced.id)).toMatchObject({ ok: true, moved: false });
    expect(results.get(own.id)).toMatchObject({ ok: true, moved: true });
    // The own move queued its verify in the move's statement, and only that row is sent.
    const ownRows = await t.database.db.anyFirst(sql.unsafe`
      select id from workflow_outbox where workflow_id = ${`domain/${own.id}`} and kind = 'signal_domain' and payload->>'signal' = 'verify'`);
    expect(ownRows).toHaveLength(1);
    expect(results.get(own.id)!.outboxId).toBe(ownRows[0]);
    expect(handed).toEqual(ownRows);
    for (const d of [raced, own]) expect((await domains.getById(d.id))!.status).toBe('pending_certificate');
    // Nothing queued for the raced one (its workflow's own check moved it and goes on by itself).
    const queued = await t.database.db.anyFirst(sql.unsafe`
      select workflow_id from workflow_outbox where workflow_id = ${`domain/${raced.id}`} and kind = 'signal_domain'`);
    expect(queued).toEqual([]);
  });

  it('a zero-downtime move orders at most one certificate at a time per domain (the order lease)', async () => {
    const d = await create('shop.schedule-lease.test');
    expect(await schedule().takeMoveOrder(d.id, 60_000)).toBe(true);
    expect(await schedule().takeMoveOrder(d.id, 60_000)).toBe(false);
    await schedule().releaseMoveOrder(d.id);
    expect(await schedule().takeMoveOrder(d.id, 60_000)).toBe(true);
    // A lease past its time is free again (a step that died mid-order).
    await t.database.db.query(sql.unsafe`update dns_check_schedule set move_order_until = hg_now() - interval '1 second' where domain_id = ${d.id}`);
    expect(await schedule().takeMoveOrder(d.id, 60_000)).toBe(true);
  });

  it('two checkers sharing the table never check a row twice', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push((await create(`shop.shared${i}.schedule.test`)).id);
    await parkOthers(ids);
    const seen = new Map<string, number>();
    const dns = createDnsCheckActivities({ db: t.database.db, config: t.config });
    const counting: DnsCheckerDeps['check'] = async (domain) => {
      seen.set(domain.domainId, (seen.get(domain.domainId) ?? 0) + 1);
      return dns.checkScheduled(domain);
    };
    // Claims of 5 rows: both checkers keep claiming while rows are due, so their claims interleave.
    const [a, b] = [checker({ check: counting, concurrency: 3, claimBatch: 5 }), checker({ check: counting, concurrency: 3, claimBatch: 5 })];
    const [na, nb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(na + nb).toBe(60);
    expect(na).toBeGreaterThan(0);
    expect(nb).toBeGreaterThan(0);
    expect([...seen.keys()].sort()).toEqual([...ids].sort());
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const checks = await t.database.db.anyFirst(sql.unsafe`select checks from dns_check_schedule where domain_id = any(${sql.array(ids, 'text')})`);
    expect(checks.every((n) => n === 1)).toBe(true);
  });

  describe('with a worker', () => {
    let worker: RunningWorker;
    beforeAll(async () => { worker = await startTestWorker(t.temporal, t.database.db, t.config); });
    afterAll(async () => { await worker?.stop(); });

    it('a domain whose DNS becomes right is verified by the checker within its next slot, no verify sent; its workflow keeps no timer per check', async () => {
      const hostname = 'shop.checker-verifies.test';
      const d = await create(hostname);
      // The checker's first check (the workflow makes none of its own).
      await waitFor('the first check', async () => ((await schedule().slotOf(d.id))?.checks ?? 0) >= 1, 20_000, 100);
      const slot = (await schedule().slotOf(d.id))!;
      acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
      await waitFor('active without a verify', async () => (await domainsRepository(t.database.db).getById(d.id))?.status === 'active', 60_000, 200);
      const verifiedAt = await t.database.db.oneFirst(sql.unsafe`
        select (extract(epoch from created_at) * 1000)::float8 from domain_status_history where domain_id = ${d.id} and to_status = 'pending_certificate'`) as number;
      // Its next slot (≤ 6 s after the first check), plus the sweep (1 s) and the workflow's own check.
      expect(verifiedAt).toBeLessThan(slot.nextCheckAt.getTime() + 4_000);
      expect(await schedule().slotOf(d.id)).toBeNull();

      const history = await historyOfAllRuns(t.temporal.client, `domain/${d.id}`);
      // The checker made the checks: the workflow at most the one its verify asked for (none when
      // it started after the checker had moved the domain), and before that, one timer at most —
      // the 14 days, none per check.
      const dnsChecks = activityRuns(history).filter((name) => /dns/i.test(name));
      expect(dnsChecks.length).toBeLessThanOrEqual(1);
      const firstVerify = history.findIndex((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'verify');
      const waiting = firstVerify > 0 ? history.slice(0, firstVerify) : history;
      expect(waiting.filter((e) => e.timerStartedEventAttributes).length).toBeLessThanOrEqual(1);
    }, 90_000);

    it('a checker that dies between the move and the signal loses nothing: the verify committed with the move reaches the workflow through the outbox sweep within seconds, not at its 14-day timer', async () => {
      const hostname = 'shop.checker-crash.test';
      const d = await create(hostname);
      const workflowId = `domain/${d.id}`;
      await waitFor('the first check', async () => ((await schedule().slotOf(d.id))?.checks ?? 0) >= 1, 20_000, 100);
      // Out of the worker's own checker's way (its next slot is seconds ahead, so no check of it is
      // in flight): this test makes the move itself, as a checker would.
      await t.database.db.query(sql.unsafe`update dns_check_schedule set next_check_at = hg_now() + interval '1 day' where domain_id = ${d.id}`);
      // The workflow is waiting for a verify on its one timer, the 14 days.
      await waitFor('the workflow waiting on its timer', async () => (await historyOfAllRuns(t.temporal.client, workflowId)).some((e) => e.timerStartedEventAttributes), 30_000, 200);
      acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
      const seq = (await domainsRepository(t.database.db).getById(d.id))!.status_seq;

      // The checker's check and move, committed — and then the process is gone: nothing is sent.
      const dns = createDnsCheckActivities({ db: t.database.db, config: t.config });
      const result = await dns.checkScheduled({ domainId: d.id, hostname, isApex: false, seq });
      const movedAt = Date.now();
      expect(result).toMatchObject({ ok: true, moved: true });
      const outboxId = (result as { outboxId: number }).outboxId;
      expect(typeof outboxId).toBe('number');
      expect(await t.database.db.maybeOne(sql.unsafe`select payload->>'signal' as signal, dispatched_at from workflow_outbox where id = ${outboxId} and workflow_id = ${workflowId}`))
        .toEqual({ signal: 'verify', dispatched_at: null });
      expect((await domainsRepository(t.database.db).getById(d.id))!.status).toBe('pending_certificate');
      expect((await historyOfAllRuns(t.temporal.client, workflowId)).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'verify')).toBe(false);

      // What every worker process runs beside its checker (worker/main.ts: a sweep every second).
      const sweep = createOutboxDispatcher({ db: t.database.db, client: t.temporal.client, taskQueue: t.temporal.taskQueue, logger });
      sweep.startLoop(1000);
      try {
        await waitFor('active after the sweep delivered the verify', async () => (await domainsRepository(t.database.db).getById(d.id))?.status === 'active', 30_000, 100);
      } finally {
        await sweep.stop();
      }
      // Seconds (the sweep, the workflow's task, one certificate), where the timer is 14 days.
      expect(Date.now() - movedAt).toBeLessThan(20_000);
      expect(await t.database.db.oneFirst(sql.unsafe`select dispatched_at is not null from workflow_outbox where id = ${outboxId}`)).toBe(true);
      const history = await historyOfAllRuns(t.temporal.client, workflowId);
      expect(history.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'verify')).toHaveLength(1);
      expect(history.some((e) => e.timerFiredEventAttributes)).toBe(false);
    }, 90_000);

    it('the checker in the worker moves a domain and sends its verify at once: the counters move', async () => {
      const hostname = 'shop.checker-counts.test';
      const d = await create(hostname);
      await waitFor('the first check', async () => ((await schedule().slotOf(d.id))?.checks ?? 0) >= 1, 20_000, 100);
      const before = await counters();
      acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
      await schedule().dueNow(d.id);
      await waitFor('active', async () => (await domainsRepository(t.database.db).getById(d.id))?.status === 'active', 30_000, 100);
      const after = await counters();
      expect(after.checks.right - before.checks.right).toBeGreaterThanOrEqual(1);
      expect(after.moves - before.moves).toBeGreaterThanOrEqual(1);
      // Sent by the checker's own dispatch (no outbox sweep runs in this test).
      expect(after.signals.sent - before.signals.sent).toBeGreaterThanOrEqual(1);
      expect(await t.database.db.oneFirst(sql.unsafe`
        select bool_and(dispatched_at is not null) from workflow_outbox where workflow_id = ${`domain/${d.id}`} and kind = 'signal_domain'`)).toBe(true);
    }, 60_000);

    it('verify now stays immediate: the workflow checks at once, whatever the checker\'s slot', async () => {
      const hostname = 'shop.verify-now.test';
      const d = await create(hostname);
      await waitFor('the first check', async () => ((await schedule().slotOf(d.id))?.checks ?? 0) >= 1, 20_000, 100);
      // The checker would look again only in an hour.
      await t.database.db.query(sql.unsafe`update dns_check_schedule set next_check_at = hg_now() + interval '1 hour' where domain_id = ${d.id}`);
      acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
      const sent = Date.now();
      expect((await api.post(`/v1/domains/${d.id}/verify`)).statusCode).toBe(202);
      await waitFor('active after the verify', async () => (await domainsRepository(t.database.db).getById(d.id))?.status === 'active', 30_000, 100);
      expect(Date.now() - sent).toBeLessThan(15_000);
    }, 60_000);
  });
});
