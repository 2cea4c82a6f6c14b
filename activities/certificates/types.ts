// The certificate activities' inputs and results (recorded in workflow histories: change with care).
import type { DomainState } from '../../contracts/domain-workflow.ts';

export interface IssuedCertificate { certificateId: string; serial: string; notBefore: string; notAfter: string; state?: DomainState }

export interface FinalizeInput {
  domainId: string;
  orderUrl: string;
  /**
   * After storing: `activateFromSeq` moves the domain to `active` if its row is still at that
   * sequence (first certificate), clearing `verification.problem` with the move; `{}` only clears
   * the problem (renewal). Absent (histories from before this option): nothing more happens.
   */
  then?: { activateFromSeq?: number };
}
