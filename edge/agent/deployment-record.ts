// What this process has recorded in edge_deployments (domain → certificate), so that a full pass
// sends only the entries that differ from it: re-recording every deployment took ≈ 600 ms of
// Postgres at 20,051 hostnames on every pass, beside the changes being applied. Everything is sent
// again (with the prune) when the table's count for this edge differs from the record (rows
// deleted elsewhere, e.g. with the node; the first pass of a process) and every FULL_REPORT_EVERY
// passes regardless.
import type { Deployment, EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Pause } from './changes-first.ts';
import type { DeploymentReport } from './deployment-report.ts';

/** Every this many full passes, all deployments are recorded again and the others pruned. */
const FULL_REPORT_EVERY = 10;

export function createDeploymentRecord(deps: {
  report: DeploymentReport; repo: Pick<EdgeRepository, 'deploymentCount' | 'pruneDeployments'>; edgeId: string; logger: Logger;
}) {
  const { report, repo, edgeId, logger } = deps;
  const recorded = new Map<string, string>();
  let passesSinceWholeReport = Number.POSITIVE_INFINITY;
  const note = (deployed: readonly Deployment[], removed: readonly string[]) => {
    for (const d of deployed) recorded.set(d.domainId, d.certificateId);
    for (const id of removed) recorded.delete(id);
  };

  return {
    /** After a targeted pass: what it deployed and removed. A failure is left to the next full pass. */
    async afterChanges(deployed: Deployment[], removed: string[]): Promise<void> {
      try {
        await report(deployed, removed);
        note(deployed, removed);
      } catch (error) {
        logger.warn({ err: error }, 'edge: could not record deployments; the next reconcile records them');
      }
    },
    /**
     * After a full pass: `all` is every deployment it found served, `removed` what it took off;
     * `keep` the domains not to prune although absent from `all` (those targeted passes took on
     * meanwhile). Slices of the report await `pause`.
     */
    async afterFullPass(all: Deployment[], removed: string[], keep: Iterable<string>, pause: Pause): Promise<void> {
      const whole = passesSinceWholeReport >= FULL_REPORT_EVERY || (await repo.deploymentCount(edgeId)) !== recorded.size;
      const send = whole ? all : all.filter((d) => recorded.get(d.domainId) !== d.certificateId);
      await report(send, removed, pause);
      note(send, removed);
      if (!whole) {
        passesSinceWholeReport++;
        return;
      }
      const kept = new Set([...all.map((d) => d.domainId), ...keep]);
      await repo.pruneDeployments(edgeId, [...kept]);
      for (const id of [...recorded.keys()]) if (!kept.has(id)) recorded.delete(id);
      passesSinceWholeReport = 0;
    },
  };
}
export type DeploymentRecord = ReturnType<typeof createDeploymentRecord>;
