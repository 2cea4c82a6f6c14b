// What "healthy" and "counts for activation" mean for an edge when there are several
// (docs/edge.md, "Several edges"). Pure: the agent's health endpoint, its heartbeat, `hostgate
// edge status` and the activation check all decide with these functions, so they cannot disagree.

/** An edge's own view of itself, reported with every heartbeat (edge_nodes.state). */
export type EdgeState =
  /** Started, or returning, and not yet through a full comparison with Postgres. */
  | 'catching_up'
  /** Its last complete read of Postgres is younger than the lag threshold, HAProxy answers. */
  | 'in_sync'
  /** HAProxy's runtime API does not answer: what it serves is unknown. */
  | 'haproxy_unreachable'
  /** SIGTERM received: draining; load balancers should take it out now. */
  | 'stopping';

export const EDGE_STATES: readonly EdgeState[] = ['catching_up', 'in_sync', 'haproxy_unreachable', 'stopping'];

/** Heartbeats an edge may miss before it counts as dead (it holds nothing back any more). */
export const LIVENESS_MISSED_HEARTBEATS = 3;

export interface EdgeSelfView {
  stopping: boolean;
  haproxyReachable: boolean;
  /** When the agent last finished a read of Postgres with every change applied (ms epoch), null: never since it started. */
  lastSyncAt: number | null;
  /** Whether a full comparison with HAProxy's own view has finished since the agent started. */
  fullyReconciled: boolean;
  now: number;
  maxLagMs: number;
}

export interface EdgeHealth { state: EdgeState; lagMs: number | null; httpStatus: 200 | 503; reason: string }

/** The agent's health: 200 only when in sync (the endpoint load balancers and DNS checks poll). */
export function edgeHealth(v: EdgeSelfView): EdgeHealth {
  const lagMs = v.lastSyncAt === null ? null : Math.max(0, v.now - v.lastSyncAt);
  const answer = (state: EdgeState, reason: string): EdgeHealth => ({ state, lagMs, httpStatus: state === 'in_sync' ? 200 : 503, reason });
  if (v.stopping) return answer('stopping', 'the agent is stopping');
  if (!v.haproxyReachable) return answer('haproxy_unreachable', "HAProxy's runtime API does not answer");
  if (!v.fullyReconciled || lagMs === null) return answer('catching_up', 'the first full comparison with Postgres has not finished');
  if (lagMs > v.maxLagMs) return answer('catching_up', `the last complete read of Postgres is ${lagMs} ms old (limit ${v.maxLagMs} ms)`);
  return answer('in_sync', `in sync (lag ${lagMs} ms)`);
}

/** Whether an edge's heartbeat is recent enough for it to count (LIVENESS_MISSED_HEARTBEATS intervals). */
export function isLive(node: { lastSeenAt: number; heartbeatIntervalMs: number }, now: number): boolean {
  return now - node.lastSeenAt <= LIVENESS_MISSED_HEARTBEATS * node.heartbeatIntervalMs;
}

export interface EdgeNodeView { id: string; lastSeenAt: number; heartbeatIntervalMs: number; state: EdgeState; servesCertificate: boolean }

/**
 * Activation with several edges: a certificate counts as deployed once every live, in-sync edge
 * serves it, and at least one does. A dead edge (no heartbeat within the window), one still
 * catching up, or one stopping holds nothing back; it serves the certificate before it reports
 * in_sync again (its first full reconcile deploys everything first).
 */
export function deployedEverywhere(nodes: readonly EdgeNodeView[], now: number): { deployed: boolean; counted: string[]; missing: string[] } {
  const counted = nodes.filter((n) => n.state === 'in_sync' && isLive(n, now));
  const missing = counted.filter((n) => !n.servesCertificate).map((n) => n.id);
  return { deployed: counted.length > 0 && missing.length === 0, counted: counted.map((n) => n.id), missing };
}

/** One line per edge for `hostgate edge status` and the docs' wording. */
export function describeNode(n: { lastSeenAt: number; heartbeatIntervalMs: number; state: EdgeState; syncLagMs: number | null }, now: number): string {
  if (!isLive(n, now)) return `down (no heartbeat for ${Math.round((now - n.lastSeenAt) / 1000)} s; holds no activation back)`;
  const lag = n.syncLagMs === null ? '' : `, lag ${n.syncLagMs} ms`;
  return n.state === 'in_sync' ? `healthy (in sync${lag})` : `unhealthy: ${n.state.replace('_', ' ')}${lag}`;
}
