// Workflow ids are the dedup scope: one workflow per domain, ever. A repeated start (API retry,
// outbox re-dispatch, reconciler) finds the running one and is a no-op.
export { domainWorkflowId } from '../../db/repositories/domains.ts';

export interface DomainWorkflowInput {
  domainId: string;
  organizationId: string;
  hostname: string;
}
