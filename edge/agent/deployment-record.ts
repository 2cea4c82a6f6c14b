// What this process has recorded in edge_deployments (domain → certificate), so that a full pass
// sends only the entries that differ from it: re-recording every deployment took ≈ 600 ms of
// Postgres at 20,051 hostnames on every pass, beside the changes being applied. When the table's
// count for this edge differs from the record (the first pass of a process, rows deleted
// elsewhere, e.g. with the node), and every FULL_REPORT_EVERY passes regardless, the record is
// read back from the table first (in pages) and only the differences are written, extra rows
// deleted: the first pass after a boot at 100,000 hostnames re-recorded all of them, 100,000
// upserts beside the first changes, where reading them back is a few hundred ms of Postgres.
import type { Deployment, EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { Pause } from './changes-first.ts';
import type { DeploymentReport } from './deployment-report.ts';

/** Every this many full passes, the record is read back from the table (and corrected). */
const FULL_REPORT_EVERY = 10;
/** Recorded deployments read per page. */
const READ_PAGE = 2_000;

export function createDeploymentRecord(deps: {
  report: DeploymentReport; repo: Pick<EdgeRepository, 'deploymentCount' | 'deploymentsPage'>; edgeId: string; logger: Logger;
}) {
  const { report, repo, edgeId, logger } = deps;
  const recorded = new Map<string, string>();
  let passesSinceWholeReport = Number.POSITIVE_INFINITY;
  /** Rows read back whose domain's track still says `issued`: sent again if served, else deleted. */
  const staleTracks = new Set<string>();
  const note = (deployed: readonly Deployment[], removed: readonly string[]) => {
    for (const d of deployed) recorded.set(d.domainId, d.certificateId);
    for (const id of removed) recorded.delete(id);
  };

  /** The record := the table's rows for this edge; a row whose domain's track still says `issued` is left out (sent again). */
  async function readBack(pause: Pause): Promise<void> {
    recorded.clear();
    for (let after: string | null = null; ;) {
      const page = await repo.deploymentsPage(edgeId, after, READ_PAGE);
      for (const r of page) {
        if (r.track_issued) staleTracks.add(r.domain_id);
        else recorded.set(r.domain_id, r.certificate_id);
      }
      if (page.length < READ_PAGE) return;
      after = page.at(-1)!.domain_id;
      await pause();
    }
  }

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
     * `keep` the domains not to delete although absent from `all` (those targeted passes took on
     * meanwhile: live, read at the end). Slices of the work await `pause`.
     */
    async afterFullPass(all: Deployment[], removed: string[], keep: ReadonlySet<string>, pause: Pause): Promise<void> {
      const whole = passesSinceWholeReport >= FULL_REPORT_EVERY || (await repo.deploymentCount(edgeId)) !== recorded.size;
      staleTracks.clear();
      if (whole) await readBack(pause);
      const send = all.filter((d) => recorded.get(d.domainId) !== d.certificateId);
      let gone = removed;
      if (whole) {
        const served = new Set(all.map((d) => d.domainId));
        const extra = [...recorded.keys(), ...staleTracks].filter((id) => !served.has(id) && !keep.has(id));
        gone = [...new Set([...removed, ...extra])];
      }
      await report(send, gone, pause);
      note(send, gone);
      passesSinceWholeReport = whole ? 0 : passesSinceWholeReport + 1;
    },
  };
}
export type DeploymentRecord = ReturnType<typeof createDeploymentRecord>;
