// Workflow ids are the dedup scope: one workflow per domain, ever. A repeated start (API retry,
// outbox re-dispatch, reconciler) finds the running one and is a no-op.
export { domainWorkflowId } from '../../db/repositories/domains.ts';

import type { DomainState } from '../../activities/domain.ts';

export interface DomainWorkflowInput {
  domainId: string;
  organizationId: string;
  hostname: string;
  /** Whether the hostname is a registrable domain (fixed at creation; absent on older starts). */
  isApex?: boolean;
  /** False only where the server cannot index custom search attributes (time-skipping tests). */
  searchAttributes?: boolean;
  /** Set by continue-as-new: what the previous run knew, so the new one picks up mid-phase. */
  carry?: DomainWorkflowCarry;
}

export interface DomainWorkflowCarry {
  state?: DomainState;
  /** Epoch ms when the current DNS wait began (the 14-day limit counts from here). */
  dnsWaitStartedAt: number | null;
  dnsChecks: number;
  /** Epoch ms of the next scheduled DNS check when a run continued as new mid-wait. */
  nextDnsCheckAt?: number | null;
  certFailures: number;
  certificate: { id: string; notBefore: number; notAfter: number } | null;
  /** Signals received but not yet acted on. */
  pending: { verify: boolean; delete: boolean; suspend: string | null; resume: boolean };
}
