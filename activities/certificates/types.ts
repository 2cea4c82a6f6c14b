// The certificate activities' inputs and results (recorded in workflow histories: change with care).
import type { DomainState } from '../../contracts/domain-workflow.ts';

export interface IssuedCertificate {
  certificateId: string; serial: string; notBefore: string; notAfter: string; state?: DomainState;
  /**
   * When this answer was made (the activity's clock): whether the certificate is due on arrival
   * is judged at this time, not at the workflow task's, which can be earlier (issue 22).
   * Absent in histories from before it.
   */
  answeredAt?: string;
  /** The customer's own certificate in place (no order was placed; issue 22, part B). Absent: managed. */
  custom?: boolean;
}

export interface FinalizeInput {
  domainId: string;
  orderUrl: string;
  /**
   * After storing: the transition the workflow names (`certificate_issued`, a first certificate where
   * no edge has to serve it first) if the row is still at `expectedSeq`, clearing
   * `verification.problem` with it; `{}` only clears the problem (a renewal, or a first
   * certificate that waits for an edge). Absent (histories from before this option): nothing
   * more happens.
   */
  then?: AfterIssuance | LegacyAfterIssuance;
}

export interface AfterIssuance { transition?: 'certificate_issued'; expectedSeq?: number }
/** What inputs scheduled before transitions were named carry: the same, said as "activate". */
export interface LegacyAfterIssuance { activateFromSeq?: number }

/** The transition an input asks for after storing, whichever shape it was scheduled with. */
export function requestedTransition(then: AfterIssuance | LegacyAfterIssuance): { transition: 'certificate_issued'; expectedSeq: number } | null {
  if ('activateFromSeq' in then && then.activateFromSeq !== undefined) return { transition: 'certificate_issued', expectedSeq: then.activateFromSeq };
  if ('transition' in then && then.transition && then.expectedSeq !== undefined) return { transition: then.transition, expectedSeq: then.expectedSeq };
  return null;
}
