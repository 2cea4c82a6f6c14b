// What the agent tells the rest of Hostgate after applying changes: which certificates this edge
// now serves and which domains it stopped serving, recorded in Postgres, and — in the same
// transaction — a `deployed` signal for each domain whose workflow waits for that deployment to
// become `active` (workflows/domain/phases/await-deployment.ts). A handler of its own, as
// kubernetes-ingress writes status back, not a side effect of a repository method.
import type { Db } from '../../db/pool.ts';
import { edgeRepository, type Deployment } from '../../db/repositories/edge.ts';
import { workflowOutboxRepository } from '../../db/repositories/workflow-outbox.ts';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Pause } from './changes-first.ts';

/** Deployments per transaction: 2,000 took ≈ 150 ms of Postgres each at 30,051 served (2.2 s for 15). */
const REPORT_SLICE = 500;

/** `pause`: awaited between two slices (a full pass gives ChangesFirst.pause: changes go first). */
export type DeploymentReport = (deployed: readonly Deployment[], removed?: readonly string[], pause?: Pause) => Promise<{ signaled: number }>;

export function createDeploymentReport(db: Db, edgeId: string): DeploymentReport {
  const edge = edgeRepository(db);
  const outbox = workflowOutboxRepository(db);
  const record = (deployed: readonly Deployment[], removed: readonly string[]) => db.transaction(async (tx) => {
    const waiting = await edge.recordDeployments(tx, edgeId, deployed, removed);
    // Coalesced: a domain with a `deployed` signal already queued gets no second one.
    const queued = await outbox.enqueueDomainSignals(tx, waiting, { signal: 'deployed' });
    return queued.length;
  });
  return async (deployed, removed = [], pause = yieldToLoop) => {
    if (deployed.length === 0 && removed.length === 0) return { signaled: 0 };
    // A full pass after a boot records every deployment (100,000 at the largest edge measured):
    // in slices, each its own transaction (rows are upserts; a slice that fails is recorded by the
    // next pass), so Postgres serves a targeted add's reads between them rather than after one
    // long statement.
    let signaled = await record(deployed.slice(0, REPORT_SLICE), removed);
    for (let i = REPORT_SLICE; i < deployed.length; i += REPORT_SLICE) {
      await pause();
      signaled += await record(deployed.slice(i, i + REPORT_SLICE), []);
    }
    return { signaled };
  };
}
