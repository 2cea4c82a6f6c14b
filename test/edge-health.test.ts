// The pure rules of several edges (model/edge-health.ts) and the agent's health tracker
// (edge/agent/health.ts) with a clock of the test's own: every state and the 200/503 it answers.
import { describe, expect, it } from '@jest/globals';
import { createHealthTracker } from '../edge/agent/health.ts';
import { deployedEverywhere, describeNode, edgeHealth, isLive } from '../model/edge-health.ts';

const view = { stopping: false, haproxyReachable: true, lastSyncAt: 1000, fullyReconciled: true, now: 2000, maxLagMs: 5000 };

describe('edge health (model)', () => {
  it('is in sync (200) only with HAProxy answering, a full reconcile done and a lag under the limit', () => {
    expect(edgeHealth(view)).toMatchObject({ state: 'in_sync', httpStatus: 200, lagMs: 1000 });
    expect(edgeHealth({ ...view, now: 6001 })).toMatchObject({ state: 'catching_up', httpStatus: 503, lagMs: 5001 });
    expect(edgeHealth({ ...view, fullyReconciled: false })).toMatchObject({ state: 'catching_up', httpStatus: 503 });
    expect(edgeHealth({ ...view, lastSyncAt: null })).toMatchObject({ state: 'catching_up', lagMs: null });
    expect(edgeHealth({ ...view, haproxyReachable: false })).toMatchObject({ state: 'haproxy_unreachable', httpStatus: 503 });
    // Stopping wins over everything: load balancers take the edge out first.
    expect(edgeHealth({ ...view, haproxyReachable: false, stopping: true })).toMatchObject({ state: 'stopping', httpStatus: 503 });
  });

  it('counts an edge live within 3 of its own heartbeat intervals', () => {
    expect(isLive({ lastSeenAt: 0, heartbeatIntervalMs: 1000 }, 3000)).toBe(true);
    expect(isLive({ lastSeenAt: 0, heartbeatIntervalMs: 1000 }, 3001)).toBe(false);
    expect(isLive({ lastSeenAt: 0, heartbeatIntervalMs: 10_000 }, 29_000)).toBe(true);
  });

  it('deploys once every live in-sync edge serves the certificate; dead, catching-up and stopping edges hold nothing back', () => {
    const n = (id: string, serves: boolean, over: Partial<{ lastSeenAt: number; state: 'in_sync' | 'catching_up' | 'stopping' }> = {}) =>
      ({ id, servesCertificate: serves, lastSeenAt: 10_000, heartbeatIntervalMs: 1000, state: 'in_sync' as const, ...over });
    expect(deployedEverywhere([n('a', true), n('b', true)], 10_500)).toEqual({ deployed: true, counted: ['a', 'b'], missing: [] });
    expect(deployedEverywhere([n('a', true), n('b', false)], 10_500)).toEqual({ deployed: false, counted: ['a', 'b'], missing: ['b'] });
    expect(deployedEverywhere([n('a', true), n('b', false, { lastSeenAt: 0 })], 10_500).deployed).toBe(true);
    expect(deployedEverywhere([n('a', true), n('b', false, { state: 'catching_up' })], 10_500).deployed).toBe(true);
    expect(deployedEverywhere([n('a', true), n('b', false, { state: 'stopping' })], 10_500).deployed).toBe(true);
    // No edge to count: nothing is served, nothing is active.
    expect(deployedEverywhere([n('a', true, { lastSeenAt: 0 })], 10_500)).toEqual({ deployed: false, counted: [], missing: [] });
    expect(deployedEverywhere([], 0).deployed).toBe(false);
  });

  it('describes a node the way `hostgate edge status` prints it', () => {
    expect(describeNode({ lastSeenAt: 0, heartbeatIntervalMs: 1000, state: 'in_sync', syncLagMs: 40 }, 500)).toBe('healthy (in sync, lag 40 ms)');
    expect(describeNode({ lastSeenAt: 0, heartbeatIntervalMs: 1000, state: 'catching_up', syncLagMs: null }, 500)).toBe('unhealthy: catching up');
    expect(describeNode({ lastSeenAt: 0, heartbeatIntervalMs: 1000, state: 'in_sync', syncLagMs: 40 }, 9000)).toMatch(/^down \(no heartbeat for 9 s/);
  });
});

describe('health tracker (agent)', () => {
  const make = (reachable = true) => {
    let clock = 0;
    const tracker = createHealthTracker({ maxLagMs: 1000, now: () => clock, probeHaproxy: async () => { if (!reachable) throw new Error('no socket'); } });
    return { tracker, at: (ms: number) => { clock = ms; } };
  };

  it('catches up until a full reconcile, stays in sync with polls, falls behind without them', async () => {
    const { tracker, at } = make();
    expect((await tracker.check()).state).toBe('catching_up');
    tracker.noteSynced(0, false);
    expect((await tracker.check()).state).toBe('catching_up');
    at(100); tracker.noteSynced(50, true);
    expect(await tracker.check()).toMatchObject({ state: 'in_sync', lagMs: 50, httpStatus: 200 });
    at(900); tracker.noteSynced(800, false);
    at(1700);
    expect((await tracker.check()).state).toBe('in_sync');
    at(1801);
    expect(await tracker.check()).toMatchObject({ state: 'catching_up', lagMs: 1001 });
    // A restart in the same process catches up again before it says in sync.
    tracker.markStarting();
    expect(await tracker.check()).toMatchObject({ state: 'catching_up', lagMs: null });
    tracker.noteSynced(1801, true);
    expect((await tracker.check()).state).toBe('in_sync');
  });

  it('a refused change keeps it out of sync until the next clean full reconcile', async () => {
    const { tracker, at } = make();
    tracker.noteSynced(0, true);
    tracker.noteFailure();
    at(10); tracker.noteSynced(10, false);
    expect((await tracker.check()).state).toBe('catching_up');
    at(20); tracker.noteSynced(20, true);
    expect((await tracker.check()).state).toBe('in_sync');
  });

  it('answers haproxy_unreachable when the runtime API does not answer, and stopping once stopped', async () => {
    const { tracker, at } = make(false);
    tracker.noteSynced(0, true);
    at(600);
    expect((await tracker.check()).state).toBe('haproxy_unreachable');
    tracker.markStopping();
    expect(await tracker.check()).toMatchObject({ state: 'stopping', httpStatus: 503 });
    // Started again in the same process: no longer stopping, still 503 (here: HAProxy unreachable).
    tracker.markStarting();
    expect(tracker.current()).toMatchObject({ state: 'haproxy_unreachable', httpStatus: 503 });
  });
});
