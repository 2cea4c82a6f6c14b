// The only code that starts or signals domain workflows (used by the outbox dispatcher and the CLI).
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../../contracts/search-attributes.ts';
import { domainWorkflowId, type DomainWorkflowInput } from '../../contracts/domain-workflow.ts';
import { certificateSignal, deleteSignal, deployedSignal, resumeSignal, suspendSignal, verifySignal, type DomainSignalName } from '../../workflows/domain/signals.ts';

/** Starts `domain/<id>`; an already running or completed one counts as success (dedup by id). */
export async function startDomainWorkflow(client: Client, taskQueue: string, input: DomainWorkflowInput): Promise<'started' | 'already_started'> {
  try {
    await client.workflow.start('domainLifecycleWorkflow', {
      workflowId: domainWorkflowId(input.domainId),
      taskQueue,
      args: [input],
      // Never start a second run for the same domain, even after the first one finished.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...(input.searchAttributes === false ? {} : {
        typedSearchAttributes: [
          { key: HostgateHostname, value: input.hostname },
          { key: HostgateOrganizationId, value: input.organizationId },
          { key: HostgateDomainStatus, value: 'pending_dns' },
        ],
      }),
      memo: { hostname: input.hostname, organizationId: input.organizationId },
      staticSummary: `Domain ${input.hostname}`,
      staticDetails: `Lifecycle of custom domain **${input.hostname}** (${input.domainId}) for organization ${input.organizationId}.`,
    });
    return 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw error;
  }
}

/** Signals the domain's workflow; a workflow that has already ended needs no signal. */
export async function signalDomainWorkflow(client: Client, domainId: string, signal: DomainSignalName, reason?: string): Promise<'signaled' | 'not_running'> {
  const handle = client.workflow.getHandle(domainWorkflowId(domainId));
  try {
    switch (signal) {
      case 'verify': await handle.signal(verifySignal); break;
      case 'deployed': await handle.signal(deployedSignal); break;
      case 'delete': await handle.signal(deleteSignal); break;
      case 'suspend': await handle.signal(suspendSignal, { reason: reason ?? 'suspended by operator' }); break;
      case 'resume': await handle.signal(resumeSignal); break;
      case 'certificate': await handle.signal(certificateSignal); break;
    }
    return 'signaled';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'not_running';
    throw error;
  }
}
