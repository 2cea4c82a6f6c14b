import { condition, proxyActivities, setHandler, upsertSearchAttributes, log } from '@temporalio/workflow';
import type { createDomainActivities } from '../../activities/domain.ts';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../search-attributes.ts';
import type { DomainWorkflowInput } from './config.ts';
import { deleteSignal, resumeSignal, stateQuery, suspendSignal, verifySignal, type DomainWorkflowState } from './signals.ts';

// Database writes: short, idempotent, retried until Postgres is back (no maximum attempts, since
// giving up would leave the row and the workflow disagreeing).
const db = proxyActivities<ReturnType<typeof createDomainActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One workflow per domain (`domain/<id>`). This version attaches to the row and serves the
 * verify / delete / suspend / resume signals; DNS checks and certificates run inside the same
 * loop as the lifecycle grows.
 */
export async function domainLifecycleWorkflow(input: DomainWorkflowInput): Promise<void> {
  const state: DomainWorkflowState = { phase: 'starting', verifyRequests: 0, deleteRequested: false };
  let suspendReason: string | null = null;
  let resumeRequested = false;
  let handledVerifies = 0;
  setHandler(verifySignal, () => { state.verifyRequests++; });
  setHandler(deleteSignal, () => { state.deleteRequested = true; });
  setHandler(suspendSignal, ({ reason }) => { suspendReason = reason; });
  setHandler(resumeSignal, () => { resumeRequested = true; });
  setHandler(stateQuery, () => state);

  upsertSearchAttributes([
    { key: HostgateHostname, value: input.hostname },
    { key: HostgateOrganizationId, value: input.organizationId },
  ]);
  const status = await db.attachWorkflow({ domainId: input.domainId });
  upsertSearchAttributes([{ key: HostgateDomainStatus, value: status }]);
  if (status === 'deleted') return;

  for (;;) {
    state.phase = 'waiting';
    await condition(() => state.deleteRequested || state.verifyRequests > handledVerifies || suspendReason !== null || resumeRequested);
    if (state.deleteRequested) {
      state.phase = 'deleting';
      const final = await db.finishDeletion({ domainId: input.domainId });
      upsertSearchAttributes([{ key: HostgateDomainStatus, value: final }]);
      log.info('domain deleted', { domainId: input.domainId });
      return;
    }
    if (suspendReason !== null) {
      const now = await db.transition({ domainId: input.domainId, to: 'suspended', reason: suspendReason });
      upsertSearchAttributes([{ key: HostgateDomainStatus, value: now }]);
      suspendReason = null;
    }
    if (resumeRequested) {
      const now = await db.transition({ domainId: input.domainId, to: 'pending_dns', reason: 'resumed' });
      upsertSearchAttributes([{ key: HostgateDomainStatus, value: now }]);
      resumeRequested = false;
    }
    if (state.verifyRequests > handledVerifies) {
      // DNS verification runs here once the lifecycle's DNS phase lands; until then the request
      // is acknowledged (visible through the `state` query and the history).
      handledVerifies = state.verifyRequests;
    }
  }
}
