// Every workflow the worker registers. Only this file is bundled into the workflow sandbox.
export { domainLifecycleWorkflow } from './domain/workflows.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery/workflows.ts';
export { billingSubscriptionWorkflow } from './billing/workflows.ts';
export { retentionWorkflow } from './maintenance/workflows.ts';
