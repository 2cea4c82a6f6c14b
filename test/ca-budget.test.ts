// The shared CA budget (issue 22): model/ca-budget.ts's turns, and db/repositories/ca-budget.ts on
// a real Postgres with two pools standing for two workers — they share one budget per account, the
// queue is renewals first then oldest, and each waiter is told when its turn is expected.
// Prints the figure for the issue: orders admitted per second under a burst of 500 with a budget
// of 250/3 h, and the longest wait shown (with the load average).
import { loadavg } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import promClient from 'prom-client';
import { createDb, sql, type Db } from '../db/pool.ts';
import { registerCaBudgetGauges } from '../metrics/ca-budget.ts';
import { newId } from '../db/ids.ts';
import { acmeOrdersRepository } from '../db/repositories/acme-orders.ts';
import { caBudgetRepository, type BudgetAdmission } from '../db/repositories/ca-budget.ts';
import { budgetProblem, budgetTurn } from '../model/ca-budget.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

const S = 1000;

describe('budgetTurn', () => {
  const budget = { orders: 3, windowMs: 60 * S };
  it('admits while the window has room for the waiters ahead and this one', () => {
    expect(budgetTurn([], 0, 100 * S, budget)).toEqual({ admitted: true });
    expect(budgetTurn([90 * S], 1, 100 * S, budget)).toEqual({ admitted: true });
    expect(budgetTurn([90 * S], 2, 100 * S, budget).admitted).toBe(false);
  });
  it('expects the k-th waiter when the k-th oldest placement leaves the window, then a window later', () => {
    const placed = [50 * S, 60 * S, 70 * S];
    expect(budgetTurn(placed, 0, 100 * S, budget)).toEqual({ admitted: false, retryAt: 110 * S });
    expect(budgetTurn(placed, 2, 100 * S, budget)).toEqual({ admitted: false, retryAt: 130 * S });
    expect(budgetTurn(placed, 3, 100 * S, budget)).toEqual({ admitted: false, retryAt: 170 * S });
    expect(budgetTurn([90 * S], 3, 100 * S, budget)).toEqual({ admitted: false, retryAt: 160 * S });
    expect(budgetTurn(placed, 6, 100 * S, budget)).toEqual({ admitted: false, retryAt: 230 * S });
    // Placements older than the window do not count.
    expect(budgetTurn([10 * S, 60 * S, 70 * S], 0, 100 * S, budget)).toEqual({ admitted: true });
  });
  it('says when, in the problem', () => {
    expect(budgetProblem({ orders: 250, windowMs: 3 * 3600 * S }, 4, Date.UTC(2026, 10, 26, 12)).message)
      .toBe("Our certificate authority accounts' budget (250 new orders per 3 h) is used up; 4 orders are ahead of this one, which is expected to be placed at 2026-11-26T12:00:00.000Z");
  });
});

describe('the shared budget in Postgres', () => {
  let database: TestDatabase;
  let second: Db;
  const orgId = newId('organization');
  const destinationId = newId('destination');
  const DIR = 'https://ca-one.test/directory';

  beforeAll(async () => {
    database = await createTestDatabase();
    second = await createDb(database.url, { maximumPoolSize: 10 });
    await database.db.query(sql.unsafe`insert into organizations (id, name) values (${orgId}, 'Budget org')`);
    await database.db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values (${destinationId}, ${orgId}, 'https://app.vendor.test', 'app.vendor.test', 443)`);
  });
  afterAll(async () => {
    await second?.end();
    await database?.drop();
  });

  async function domains(n: number, status = 'pending_certificate'): Promise<string[]> {
    const ids = Array.from({ length: n }, () => newId('domain'));
    for (const id of ids) {
      await database.db.query(sql.unsafe`
        insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
        values (${id}, ${orgId}, ${destinationId}, ${`${id.toLowerCase().replace(/_/g, '-')}.budget.test`}, false, ${status})`);
    }
    return ids;
  }

  it('two workers admit exactly the budget; the rest queue with renewals first, then the oldest, and are admitted in that order as the window frees', async () => {
    const budget = { orders: 5, windowMs: 3 * S };
    const workers = [caBudgetRepository(database.db), caBudgetRepository(second)];
    const fresh = await domains(20);
    const [renewal] = await domains(1, 'active');
    // All at once, alternating workers.
    const first = await Promise.all(fresh.map((id, i) => workers[i % 2]!.admit(DIR, id, budget)));
    const admitted = fresh.filter((_, i) => first[i]!.admitted);
    expect(admitted).toHaveLength(5);
    const waiting = fresh.filter((_, i) => !first[i]!.admitted);
    // A renewal arriving last goes to the head of the queue.
    const r = await workers[1]!.admit(DIR, renewal!, budget);
    expect(r).toMatchObject({ admitted: false, ahead: 0 });
    // Asked again (a worker coming back early), each new domain's place is its age: the queue order.
    const again = new Map<string, BudgetAdmission>();
    for (const id of waiting) again.set(id, await workers[0]!.admit(DIR, id, budget));
    const aheads = waiting.map((id) => (again.get(id) as { ahead: number }).ahead).sort((a, b) => a - b);
    expect(aheads).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    // Expected turns never go backwards along the queue, and the first ones fall when the window frees.
    const byAhead = waiting.map((id) => again.get(id) as { ahead: number; retryAt: number }).sort((a, b) => a.ahead - b.ahead);
    for (let i = 1; i < byAhead.length; i++) expect(byAhead[i]!.retryAt).toBeGreaterThanOrEqual(byAhead[i - 1]!.retryAt);
    expect(byAhead[0]!.retryAt - Date.now()).toBeLessThanOrEqual(budget.windowMs + 500);
    expect((await workers[0]!.usage(DIR, budget.windowMs))).toEqual({ used: 5, waiting: 16 });

    // The window frees: everyone asks at once; the renewal and the four oldest get the five places.
    await new Promise((resolve) => setTimeout(resolve, budget.windowMs + 200));
    const queueOrder = [...waiting].sort((a, b) => (again.get(a) as { ahead: number }).ahead - (again.get(b) as { ahead: number }).ahead);
    const round = await Promise.all([renewal!, ...waiting].map((id, i) => workers[i % 2]!.admit(DIR, id, budget).then((a) => [id, a.admitted] as const)));
    const next = round.filter(([, ok]) => ok).map(([id]) => id).sort();
    expect(next).toEqual([renewal!, ...queueOrder.slice(0, 4)].sort());
  });

  it('the worker gauges: used, limit and waiting per CA', async () => {
    const budget = { orders: 2, windowMs: 3_600 * S };
    const dir = 'https://gauged.test/directory';
    const repo = caBudgetRepository(database.db);
    for (const id of await domains(3)) await repo.admit(dir, id, budget);
    registerCaBudgetGauges(() => repo.readings([{ name: 'gauged', directoryUrl: dir, budget }]));
    const text = await promClient.register.metrics();
    expect(text).toMatch(/hostgate_ca_budget_limit\{ca="gauged"\} 2\n/);
    expect(text).toMatch(/hostgate_ca_budget_used\{ca="gauged"\} 2\n/);
    expect(text).toMatch(/hostgate_ca_budget_waiting\{ca="gauged"\} 1\n/);
  });

  it('a deleted domain, or one that never came back, holds no place', async () => {
    const budget = { orders: 1, windowMs: 60 * S };
    const dir = 'https://ca-two.test/directory';
    const repo = caBudgetRepository(database.db);
    const [a, gone, late, c] = await domains(4);
    expect((await repo.admit(dir, a!, budget)).admitted).toBe(true);
    await repo.admit(dir, gone!, budget);
    await repo.admit(dir, late!, budget);
    expect(await repo.admit(dir, c!, budget)).toMatchObject({ admitted: false, ahead: 2 });
    await database.db.query(sql.unsafe`update domains set status = 'deleted' where id = ${gone!}`);
    // `late` was expected long ago and did not come back.
    await database.db.query(sql.unsafe`update ca_budget_waiters set retry_at = now() - interval '1 minute' where domain_id = ${late!}`);
    expect(await repo.admit(dir, c!, budget)).toMatchObject({ admitted: false, ahead: 0 });
  });

  it('a CA pause is shared: every reader sees it until it ends, and a later pause never shortens it', async () => {
    const a = caBudgetRepository(database.db);
    const b = caBudgetRepository(second);
    const until = Date.now() + 60 * S;
    await a.pause('https://paused.test/dir', until, 'rateLimited');
    await a.pause('https://paused.test/dir', Date.now() + 5 * S, 'serverInternal');
    const seen = (await b.paused()).get('https://paused.test/dir');
    expect(seen?.until).toBeGreaterThanOrEqual(until - 1);
    await a.pause('https://short.test/dir', Date.now() - 1, 'past');
    expect((await b.paused()).has('https://short.test/dir')).toBe(false);
  });

  it('a CA that marked an order of the domain invalid over CAA is remembered for that domain (the next order goes elsewhere)', async () => {
    const [id, other] = await domains(2);
    const orders = acmeOrdersRepository(database.db);
    const place = async (domainId: string, directoryUrl: string, n: number) => (await orders.insertWithTokens({
      orderUrl: `${directoryUrl}/order/${domainId}/${n}`, domainId, directoryUrl, hostname: `${domainId}.test`, status: 'pending', expiresAt: null, finalizeUrl: null, challengeUrls: null, tokens: [],
    }))!;
    await orders.close(await place(id!, 'https://first.test/dir', 1), 'invalid', { type: 'urn:ietf:params:acme:error:caa', detail: 'CAA record forbids issuance' });
    await orders.close(await place(id!, 'https://second.test/dir', 2), 'invalid', { type: 'urn:ietf:params:acme:error:unauthorized', detail: 'wrong answer' });
    await orders.close(await place(other!, 'https://second.test/dir', 3), 'invalid', { type: 'urn:ietf:params:acme:error:caa' });
    expect(await orders.directoriesRefusingOverCaa(id!, 3_600 * S)).toEqual(['https://first.test/dir']);
    await database.db.query(sql.unsafe`update acme_orders set updated_at = now() - interval '2 hours' where domain_id = ${id!}`);
    expect(await orders.directoriesRefusingOverCaa(id!, 3_600 * S)).toEqual([]);
  });

  it('figure: a burst of 500 orders against 250/3 h — admitted per second and the longest wait shown', async () => {
    const budget = { orders: 250, windowMs: 3 * 3600 * S };
    const dir = 'https://burst.test/directory';
    const ids = await domains(500);
    const workers = [caBudgetRepository(database.db), caBudgetRepository(second)];
    const load = loadavg()[0]!.toFixed(2);
    const t0 = performance.now();
    // Two workers, 8 admissions in flight each (a worker's activity slots).
    const results: BudgetAdmission[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async (_, lane) => {
      for (let i = next++; i < ids.length; i = next++) results[i] = await workers[lane % 2]!.admit(dir, ids[i]!, budget);
    }));
    const ms = performance.now() - t0;
    const admitted = results.filter((r) => r.admitted).length;
    const longest = Math.max(...results.map((r) => (r.admitted ? 0 : r.retryAt - Date.now())));
    console.log(JSON.stringify({ figure: 'ca_budget_burst', requests: ids.length, admitted, decisions_per_s: Math.round(ids.length / (ms / 1000)), admitted_per_s: Math.round(admitted / (ms / 1000)), burst_ms: Math.round(ms), longest_wait_shown_s: Math.round(longest / 1000), loadavg_1m: load }));
    expect(admitted).toBe(250);
    // The 250th waiter's turn is when the last of the burst's placements leaves the window: ≈ 3 h.
    expect(longest).toBeGreaterThan(budget.windowMs - 60 * S);
    expect(longest).toBeLessThanOrEqual(budget.windowMs + 60 * S);
  }, 60_000);
});
