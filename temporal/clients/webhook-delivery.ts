// The only code that starts or signals delivery workflows (used by the outbox dispatcher).
import { InternalConnectionLikeSymbol, WorkflowExecutionAlreadyStartedError, type Client, type InternalConnectionLike, type WorkflowStartOptions } from '@temporalio/client';
import { HostgateAttempt, HostgateDeliveryStatus, HostgateEndpointId, HostgateOrganizationId } from '../../contracts/search-attributes.ts';
import { WEBHOOK_DELIVERY_WORKFLOW, webhookDeliveryWorkflowId, type WebhookDeliveryInput } from '../../contracts/webhook-delivery-workflow.ts';
import { retrySignal } from '../../workflows/webhook-delivery/signals.ts';

function startOptions(taskQueue: string, input: WebhookDeliveryInput) {
  return {
    workflowId: webhookDeliveryWorkflowId(input.deliveryId),
    taskQueue,
    args: [input] as [WebhookDeliveryInput],
    ...(input.searchAttributes === false ? {} : {
      typedSearchAttributes: [
        { key: HostgateEndpointId, value: input.endpointId },
        { key: HostgateOrganizationId, value: input.organizationId },
        { key: HostgateDeliveryStatus, value: 'pending' },
        // The first attempt is made at once.
        { key: HostgateAttempt, value: 1 },
      ],
    }),
    memo: { event: input.event, endpointId: input.endpointId, organizationId: input.organizationId },
    staticSummary: `Webhook ${input.event} → ${input.endpointId}`,
    staticDetails: `Delivery **${input.deliveryId}** of a \`${input.event}\` event to endpoint ${input.endpointId} (organization ${input.organizationId}).`,
  } satisfies Partial<WorkflowStartOptions>;
}

/**
 * Whether starts through this client may ask for eager start: only a client on a NativeConnection
 * (the worker's) can; the SDK throws when a plain gRPC Connection (the API's, a test's) asks. The
 * SDK reads the same capability flag before it throws.
 */
export function canStartEagerly(client: Client): boolean {
  return (client.connection as InternalConnectionLike)[InternalConnectionLikeSymbol]?.supportsEagerStart === true;
}

/**
 * Starts `webhook-delivery/<id>`; one that is running or has finished counts as success (dedup by id).
 *
 * Eager start where the client can (see canStartEagerly): when a worker on the same connection
 * polls `taskQueue` and has a workflow-task slot free, the server hands the first workflow task
 * back in the start's answer, so the first attempt runs without a trip through the task queue
 * (bench:webhooks, docs/scale.md "Webhooks"). Without such a worker the core does not ask, and the
 * start is an ordinary one.
 */
export async function startDeliveryWorkflow(client: Client, taskQueue: string, input: WebhookDeliveryInput): Promise<'started_eagerly' | 'started' | 'already_started'> {
  try {
    const handle = await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      ...startOptions(taskQueue, input),
      // Never a second run from a repeated start: only an explicit retry may deliver again.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...(canStartEagerly(client) ? { requestEagerStart: true } : {}),
    });
    return handle.eagerlyStarted ? 'started_eagerly' : 'started';
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw error;
  }
}

/**
 * The API's retry: signals the running workflow (which attempts at once), or starts a new run of
 * the same workflow id when the previous one has finished (signal-with-start, duplicates allowed).
 */
export async function retryDeliveryWorkflow(client: Client, taskQueue: string, input: WebhookDeliveryInput): Promise<void> {
  await client.workflow.signalWithStart(WEBHOOK_DELIVERY_WORKFLOW, {
    ...startOptions(taskQueue, input),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    signal: retrySignal,
    signalArgs: [],
  });
}
