// The only code that starts or signals billing workflows (used by the outbox dispatcher).
import type { Client } from '@temporalio/client';
import type { BillingSignal } from '../../model/billing-events.ts';
import { HostgateOrganizationId } from '../../contracts/search-attributes.ts';
import { BILLING_WORKFLOW, billingWorkflowId, type BillingWorkflowInput } from '../../contracts/billing-workflow.ts';
import { providerEventSignal } from '../../workflows/billing/signals.ts';

/**
 * Delivers a provider event to `billing/<org id>`, starting the workflow when none runs (the first
 * checkout, or a new subscription after a cancellation ended the previous run).
 */
export async function signalBillingWorkflow(client: Client, taskQueue: string, input: BillingWorkflowInput, signal: BillingSignal): Promise<void> {
  await client.workflow.signalWithStart(BILLING_WORKFLOW, {
    workflowId: billingWorkflowId(input.organizationId),
    taskQueue,
    args: [input],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    signal: providerEventSignal,
    signalArgs: [signal],
    ...(input.searchAttributes === false ? {} : { typedSearchAttributes: [{ key: HostgateOrganizationId, value: input.organizationId }] }),
    memo: { organizationId: input.organizationId },
    staticSummary: `Billing of ${input.organizationId}`,
    staticDetails: `Subscription of organization ${input.organizationId}: period close and overage, dunning, cancellation.`,
  });
}
