// The agent's reconcile with HAProxy and Postgres stood in for (AgentOverrides): a full pass reads
// HAProxy's view outside the one-change-at-a-time chain, so a targeted change is applied while that
// read is still under way, and the full pass never undoes what a targeted pass changed meanwhile
// (issue 26: at 100,051 hostnames one added hostname waited 1.85 s behind a full pass).
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../db/pool.ts';
import type { EdgeRepository, ServingRow } from '../db/repositories/edge.ts';
import { createEdgeAgent } from '../edge/agent/agent.ts';
import type { HostChange, ServedHost } from '../edge/agent/desired-diff.ts';
import { createChangesFirst } from '../edge/agent/changes-first.ts';
import { diffInSlices, driftOf, sameServed } from '../edge/agent/full-pass.ts';
import { prepareStateDir, statePaths } from '../edge/agent/haproxy-files.ts';
import type { HaproxyRuntime } from '../edge/agent/haproxy-runtime.ts';
import { eachLine } from '../edge/agent/haproxy-runtime.ts';
import type { AgentSettings } from '../edge/agent/settings.ts';
import type { DesiredHost } from '../edge/agent/snapshot.ts';
import { createLogger } from '../logging/logger.ts';
import type { SecretBox } from '../security/secret-box.ts';

const dirs: string[] = [];
afterEach(async () => { for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true }); });

/** A suspended domain: served with a route and no certificate (no key to open in a unit test). */
const row = (domainId: string, hostname: string, destination: string): ServingRow => ({
  domain_id: domainId, hostname, status: 'suspended', destination_host: destination, destination_port: 443,
  certificate_id: null, serial: null, chain_pem: null, private_key_enc: null, key_id: null, redirect: null, tls_min_version: '1.2', hsts: null,
});
const route = (domainId: string, destination: string) => `${destination}|443|${domainId}|suspended|-`;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** HAProxy as a map; after `hold()`, `readServed` answers with its state once `open()` is called (a slow read at 100,000). */
function fakeHaproxy(initial: Record<string, ServedHost>) {
  const state = new Map(Object.entries(initial));
  let readStarted = deferred();
  let gate: { promise: Promise<void>; resolve: () => void } = { promise: Promise.resolve(), resolve: () => undefined };
  let worker = 1;
  let reads = 0;
  let refuse: string | null = null;
  const runtime = {
    async apply(change: HostChange) {
      if (change.hostname === refuse) throw new Error('refused');
      const have = state.get(change.hostname) ?? { route: null, inCrtList: false };
      const next = { ...have };
      if (change.route !== undefined) next.route = change.route;
      if (change.putCertificate) next.inCrtList = true;
      if (change.dropCertificate) next.inCrtList = false;
      if (next.route === null && !next.inCrtList) state.delete(change.hostname); else state.set(change.hostname, next);
    },
    async readServed() {
      reads++;
      readStarted.resolve();
      await gate.promise;
      return new Map([...state].map(([h, v]) => [h, { ...v }]));
    },
    async processKey() { return `${worker}@1`; },
    async readCounters() { return new Map(); },
  } as unknown as HaproxyRuntime;
  return {
    state, runtime,
    /** The next read waits for `open()`; resolves when it has begun. */
    hold: () => { readStarted = deferred(); gate = deferred(); return readStarted.promise; },
    open: () => gate.resolve(),
    /** A new worker (a restart or reload): its view is read again. */
    restart: () => { worker++; },
    reads: () => reads,
    /** Changes of this host fail (half applied, as far as the agent knows). */
    refuseChangesOf: (hostname: string | null) => { refuse = hostname; },
  };
}

function fakeRepository(rows: Map<string, ServingRow>) {
  let gate = { promise: Promise.resolve(), resolve: () => undefined as void };
  let started = { promise: Promise.resolve(), resolve: () => undefined as void };
  let forGate = { promise: Promise.resolve(), resolve: () => undefined as void };
  let forStarted = { promise: Promise.resolve(), resolve: () => undefined as void };
  let pages = 0;
  const repository = {
    /** A page of the rows as they were when its read began (by hostname, as Postgres orders them), answered once `gate` opens. */
    async servingDigestPage(after: string | null, limit: number) {
      const now = [...rows.values()].filter((r) => after === null || r.hostname > after).sort((a, b) => (a.hostname < b.hostname ? -1 : 1)).slice(0, limit);
      pages++;
      started.resolve();
      await gate.promise;
      return now;
    },
    async servingFor(ids: readonly string[]) {
      const now = ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : []));
      forStarted.resolve();
      await forGate.promise;
      return now;
    },
    async deploymentsPage() { return []; },
    async deploymentCount() { return 0; },
    async heartbeat() {},
  } as unknown as EdgeRepository;
  return {
    repository,
    /** The next digest read waits for `openDigest()`; resolves when it has begun. */
    holdDigest: () => { started = deferred(); gate = deferred(); return started.promise; },
    openDigest: () => gate.resolve(),
    /** The next targeted read (servingFor) waits for `openFor()`; resolves when it has begun. */
    holdFor: () => { forStarted = deferred(); forGate = deferred(); return forStarted.promise; },
    openFor: () => forGate.resolve(),
    /** Digest pages read so far. */
    pages: () => pages,
  };
}

async function agentWith(haproxy: ReturnType<typeof fakeHaproxy>, rows: Map<string, ServingRow>) {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'hg-agent-unit-'));
  dirs.push(stateDir);
  await prepareStateDir(statePaths(stateDir));
  const settings = {
    edgeId: 'edge-unit', stateDir, haproxyBin: '/usr/sbin/haproxy', haproxyMalloc: 'system', databaseUrl: undefined,
    bandwidthIntervalMs: 60_000, analyticsFlushMs: 60_000, pollIntervalMs: 60_000, reconcileIntervalMs: 60_000, heartbeatIntervalMs: 60_000,
    healthMaxLagMs: 60_000, originDnsRefreshMs: 60_000, socketTimeoutMs: 500, startTimeoutMs: 1_000, bootFirstHosts: 0, resolvers: [],
  } as unknown as AgentSettings;
  const postgres = fakeRepository(rows);
  const { repository } = postgres;
  const agent = createEdgeAgent({
    db: {} as Db, secretBox: {} as SecretBox, settings, logger: createLogger('silent', 'test'),
    overrides: { runtime: haproxy.runtime, repository, reportDeployments: async () => ({ signaled: 0 }), originLookup: async () => ({ kind: 'none' }) },
  });
  return { agent, paths: statePaths(stateDir), postgres };
}

/** While a full pass reads: dom_a moves, dom_c goes, dom_b comes, applied by a targeted pass within 2 s. */
async function changeDuringTheRead(agent: Awaited<ReturnType<typeof agentWith>>['agent'], rows: Map<string, ServingRow>) {
  rows.set('dom_a', row('dom_a', 'a.test', 'new.origin.test'));
  rows.delete('dom_c');
  rows.set('dom_b', row('dom_b', 'b.test', 'new.origin.test'));
  await within(agent.applyDomains(['dom_a', 'dom_c', 'dom_b']), 2_000, 'a targeted pass during the full pass\'s read');
}
/** HAProxy serves what changeDuringTheRead made. */
function expectTargetedChanges(haproxy: ReturnType<typeof fakeHaproxy>) {
  expect(haproxy.state.get('a.test')?.route).toBe(route('dom_a', 'new.origin.test'));
  expect(haproxy.state.has('c.test')).toBe(false);
  expect(haproxy.state.get('b.test')?.route).toBe(route('dom_b', 'new.origin.test'));
}

/** Rejects if `p` has not settled within `ms` (the chain would be held by the full pass's read). */
const within = <T>(p: Promise<T>, ms: number, what: string) => Promise.race([
  p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms).unref()),
]);

describe('a full reconcile does not hold changes behind its reads (issue 26)', () => {
  it('applies a targeted change while the full pass reads HAProxy, and does not undo it afterwards', async () => {
    const rows = new Map([
      ['dom_a', row('dom_a', 'a.test', 'old.origin.test')],
      ['dom_c', row('dom_c', 'c.test', 'old.origin.test')],
    ]);
    const haproxy = fakeHaproxy({
      'a.test': { route: route('dom_a', 'old.origin.test'), inCrtList: false },
      'c.test': { route: route('dom_c', 'old.origin.test'), inCrtList: false },
    });
    const { agent, paths } = await agentWith(haproxy, rows);
    // The agent's record of what HAProxy serves (a boot does the same).
    await agent.reconcile();
    haproxy.state.set('gone.test', { route: route('dom_gone', 'old.origin.test'), inCrtList: false });
    // A certificate file of no listed host: the sweep deletes it (outside the read, inside the chain).
    await writeFile(paths.certificate('zombie.test'), 'x');

    // A new worker (the reload that ends a staged boot, say): the full pass reads its whole view.
    haproxy.restart();
    const reading = haproxy.hold();
    const full = agent.reconcile();
    await reading;
    // Meanwhile (the full pass read Postgres before these): dom_a moves, dom_c goes, dom_b comes.
    // With HAProxy's read inside the chain, these would wait for it (the gate never opens first).
    await changeDuringTheRead(agent, rows);
    expectTargetedChanges(haproxy);

    haproxy.open();
    await within(full, 5_000, 'the full pass');
    // Its Postgres read was older than the targeted pass: none of those changes is undone.
    expectTargetedChanges(haproxy);
    // What was its to judge, it judged: the host of no row (HAProxy's own, unknown to the agent's
    // record) is gone; the stale file too.
    expect(haproxy.state.has('gone.test')).toBe(false);
    expect(await readdir(paths.certDir)).not.toContain('zombie.test.pem');
    expect(agent.status().serving).toBe(2);

    // The next full pass, with nothing going on, agrees with both and changes nothing.
    expect(await agent.reconcile()).toEqual({ changes: 0, serving: 2 });
  });

  it('with the same worker (its view not read), a targeted change during the Postgres read is not undone either', async () => {
    const rows = new Map([
      ['dom_a', row('dom_a', 'a.test', 'old.origin.test')],
      ['dom_c', row('dom_c', 'c.test', 'old.origin.test')],
    ]);
    const haproxy = fakeHaproxy({});
    const { agent, postgres } = await agentWith(haproxy, rows);
    await agent.reconcile();
    expect(haproxy.reads()).toBe(1);
    const reading = postgres.holdDigest();
    const full = agent.reconcile();
    await reading;
    await changeDuringTheRead(agent, rows);
    postgres.openDigest();
    await within(full, 5_000, 'the full pass');
    expect(haproxy.reads()).toBe(1);
    expectTargetedChanges(haproxy);
    expect(await agent.reconcile()).toEqual({ changes: 0, serving: 2 });
  });

  it('takes HAProxy\'s view of a host its own record disagrees with, unless a change went through that host meanwhile', async () => {
    const rows = new Map([['dom_a', row('dom_a', 'a.test', 'one.origin.test')]]);
    const haproxy = fakeHaproxy({ 'a.test': { route: route('dom_a', 'one.origin.test'), inCrtList: false } });
    const { agent } = await agentWith(haproxy, rows);
    await agent.reconcile();
    expect(agent.status().serving).toBe(1);
    // HAProxy loses the host behind the agent's back (a restart from older files): the next full
    // pass reads the new worker's view, sees it missing and puts it back.
    haproxy.state.delete('a.test');
    haproxy.restart();
    expect((await agent.reconcile()).changes).toBe(1);
    expect(haproxy.state.get('a.test')?.route).toBe(route('dom_a', 'one.origin.test'));
  });

  it('reads HAProxy\'s whole view only for a new worker, after a refused change, or every 10 passes', async () => {
    const rows = new Map([['dom_a', row('dom_a', 'a.test', 'one.origin.test')], ['dom_b', row('dom_b', 'b.test', 'one.origin.test')]]);
    const haproxy = fakeHaproxy({ 'a.test': { route: route('dom_a', 'one.origin.test'), inCrtList: false } });
    const { agent } = await agentWith(haproxy, rows);
    // The first pass reads (nothing known yet) and adds b.test; the next ones trust the record.
    expect((await agent.reconcile()).changes).toBe(1);
    expect(haproxy.reads()).toBe(1);
    await agent.reconcile();
    await agent.reconcile();
    expect(haproxy.reads()).toBe(1);
    // A change HAProxy refuses may be half applied: the next pass reads again.
    rows.set('dom_b', row('dom_b', 'b.test', 'two.origin.test'));
    haproxy.refuseChangesOf('b.test');
    await agent.applyDomains(['dom_b']);
    haproxy.refuseChangesOf(null);
    expect((await agent.reconcile()).changes).toBe(1);
    expect(haproxy.reads()).toBe(2);
    expect(haproxy.state.get('b.test')?.route).toBe(route('dom_b', 'two.origin.test'));
    // A reload: a new worker.
    haproxy.restart();
    await agent.reconcile();
    expect(haproxy.reads()).toBe(3);
    // Every 10 passes regardless.
    for (let i = 0; i < 10; i++) await agent.reconcile();
    expect(haproxy.reads()).toBe(3);
    await agent.reconcile();
    expect(haproxy.reads()).toBe(4);
  });
});

describe('changes first: a full pass waits while a targeted change is in flight (issue 26, the add p99)', () => {
  it('reads the digest in pages, and reads no further page while a change is being applied', async () => {
    const rows = new Map<string, ServingRow>();
    for (let i = 0; i < 3_500; i++) rows.set(`dom_${i}`, row(`dom_${i}`, `h${String(i).padStart(4, '0')}.test`, 'o.test'));
    const haproxy = fakeHaproxy({});
    const { agent, postgres } = await agentWith(haproxy, rows);
    // A change in flight: its Postgres read is held open.
    rows.set('dom_new', row('dom_new', 'new.test', 'o.test'));
    const reading = postgres.holdFor();
    const change = agent.applyDomains(['dom_new']);
    await reading;
    const full = agent.reconcile();
    await new Promise((r) => setTimeout(r, 150));
    // The page in flight when the change began, no more (with a bare yield all eight are read by now).
    expect(postgres.pages()).toBe(1);
    postgres.openFor();
    await within(change, 2_000, 'the targeted change');
    expect(haproxy.state.has('new.test')).toBe(true);
    await within(full, 5_000, 'the full pass');
    // 3,501 rows: pages of 500, the last one short.
    expect(postgres.pages()).toBe(8);
    expect(agent.status().serving).toBe(3_501);
  });

  it('lets a slice go after its bound when changes never stop', async () => {
    const first = createChangesFirst(50, 0);
    const done = first.begin();
    const t0 = performance.now();
    await first.pause();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    expect(first.inFlight()).toBe(1);
    done();
    done();
    expect(first.inFlight()).toBe(0);
    // Nothing in flight: a slice only waits for a turn of the event loop.
    const t1 = performance.now();
    await first.pause();
    expect(performance.now() - t1).toBeLessThan(45);
  });

  it('after a change, waits for a quiet moment before the next slice', async () => {
    const first = createChangesFirst(1_000, 60);
    first.begin()();
    const t0 = performance.now();
    await first.pause();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(50);
    // A change during that wait: the quiet moment starts again after it.
    const done = first.begin();
    const t1 = performance.now();
    const slice = first.pause();
    setTimeout(done, 40);
    await slice;
    expect(performance.now() - t1).toBeGreaterThanOrEqual(90);
  });

  it('wakes a waiting slice as soon as the last change is done', async () => {
    const first = createChangesFirst(10_000, 0);
    const a = first.begin();
    const b = first.begin();
    let resumed = false;
    const slice = first.pause().then(() => { resumed = true; });
    await new Promise((r) => setTimeout(r, 20));
    a();
    await new Promise((r) => setTimeout(r, 20));
    expect(resumed).toBe(false);
    b();
    await within(slice, 1_000, 'the waiting slice');
    expect(resumed).toBe(true);
  });
});

describe('the full pass\'s slices', () => {
  const host = (domainId: string, hostname: string, destination = 'o.test'): DesiredHost => ({
    hostname, domainId, mode: 'suspended', destinationHost: destination, destinationPort: 443, certificate: null, redirect: null, minTls: '1.2', hsts: null,
  });

  it('diffs in slices exactly as in one go, removals limited to what is in scope', async () => {
    const desired = new Map<string, DesiredHost>();
    const seen = new Map<string, ServedHost>();
    for (let i = 0; i < 12_000; i++) desired.set(`h${i}.test`, host(`d${i}`, `h${i}.test`));
    for (let i = 0; i < 12_000; i += 2) seen.set(`h${i}.test`, { route: route(`d${i}`, 'o.test'), inCrtList: false });
    for (let i = 0; i < 7_000; i++) seen.set(`x${i}.test`, { route: route(`x${i}`, 'o.test'), inCrtList: false });
    const inScope = (h: string) => !h.startsWith('x1');
    const changes = await diffInSlices(desired, seen, inScope);
    const added = changes.filter((c) => c.route && !c.hostname.startsWith('x')).length;
    const removed = changes.filter((c) => c.route === null).map((c) => c.hostname);
    expect(added).toBe(6_000);
    expect(removed.length).toBe(7_000 - 1_111);
    expect(removed.some((h) => h.startsWith('x1'))).toBe(false);
  });

  it('compares HAProxy\'s view with the record, skipping hosts a change went through', async () => {
    const seen = new Map<string, ServedHost>([
      ['same.test', { route: 'r1', inCrtList: true, tls13: false }],
      ['other.test', { route: 'r2', inCrtList: false }],
      ['only-haproxy.test', { route: 'r3', inCrtList: false }],
      ['touched.test', { route: 'r4', inCrtList: false }],
    ]);
    const tracked = new Map<string, ServedHost>([
      ['same.test', { route: 'r1', inCrtList: true }],
      ['other.test', { route: 'r2-old', inCrtList: false, tls13: true }],
      ['only-agent.test', { route: 'r5', inCrtList: false }],
      ['touched.test', { route: 'r4-newer', inCrtList: false }],
    ]);
    const drift = await driftOf(seen, tracked, (h) => h === 'touched.test');
    expect([...drift.keys()].sort()).toEqual(['only-agent.test', 'only-haproxy.test', 'other.test']);
    expect(drift.get('only-agent.test')).toBeUndefined();
    expect(sameServed({ route: 'r', inCrtList: false, tls13: true }, { route: 'r', inCrtList: false })).toBe(true);
    expect(sameServed({ route: 'r', inCrtList: true, tls13: true }, { route: 'r', inCrtList: true })).toBe(false);
  });

  it('reads every line of an answer, in slices', async () => {
    const lines: string[] = [];
    const text = Array.from({ length: 12_345 }, (_, i) => `line ${i}`).join('\n');
    await eachLine(`${text}\n`, (l) => { lines.push(l); });
    expect(lines.length).toBe(12_345);
    expect(lines.at(-1)).toBe('line 12344');
  });
});
