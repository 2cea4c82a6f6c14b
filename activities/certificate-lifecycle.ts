// What the domain workflow records about its certificates beyond issuance itself (issue 22):
// a renewal refused (history, the problem, hostname.certificate_failed once late enough), a
// certificate due on arrival (a problem with backoff, never an immediate new order) and the
// expiry notices. Each is one short Postgres step, idempotent on retries.
import type { Db } from '../db/pool.ts';
import { certificateLifecycleRepository } from '../db/repositories/certificate-lifecycle.ts';
import { customCertificatesRepository } from '../db/repositories/custom-certificates.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import type { Logger } from '../logging/logger.ts';
import type { Problem } from '../model/problem.ts';

export function createCertificateLifecycleActivities({ db, logger }: { db: Db; logger: Logger }) {
  const lifecycle = certificateLifecycleRepository(db);
  const domains = domainsRepository(db);
  const custom = customCertificatesRepository(db);
  return {
    /** A renewal failed: the problem shown, the history row, and the late-failure event once. */
    async renewalFailed({ domainId, problem }: { domainId: string; problem: Problem }): Promise<{ announced: boolean }> {
      const result = await lifecycle.renewalFailed(domainId, problem);
      await domains.setProblem(domainId, problem);
      if (result.announced) logger.warn({ domainId, code: problem.code }, 'certificate renewal still failing with a third of its life left');
      return result;
    },

    /** An issuance that is not one yet (due on arrival): the problem shown and the history row. */
    async certificateTrouble({ domainId, kind, problem }: { domainId: string; kind: 'due_on_arrival'; problem: Problem }): Promise<void> {
      // The history row first: a reader who sees the problem finds its row too.
      await lifecycle.recordTrouble(domainId, kind, problem.message);
      await domains.setProblem(domainId, problem);
    },

    /** hostname.certificate_expiring for the notices due now (each once per certificate). */
    async expiryNotices({ domainId, at }: { domainId: string; at?: number }): Promise<number[]> {
      return lifecycle.expiryNotices(domainId, at);
    },

    /** A custom certificate about to lapse, DNS pointing here: withdrawn, a managed one follows. */
    async withdrawLapsingCustom({ domainId, certificateId }: { domainId: string; certificateId: string }): Promise<boolean> {
      const withdrawn = await custom.withdrawLapsing(domainId, certificateId);
      if (withdrawn) logger.info({ domainId, certificateId }, 'custom certificate about to lapse: ordering a managed one');
      return withdrawn;
    },
  };
}
