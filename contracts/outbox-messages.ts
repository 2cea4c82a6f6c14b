// What a workflow_outbox row may carry: ONE discriminated union (by `kind`), whose payloads are
// the workflows' own contracts. db/ checks leased rows against it (a row no dispatcher can act on
// is dead-lettered), temporal/outbox-dispatcher.ts switches on it.
import { Type, type Static, type TSchema } from 'typebox';
import { BILLING_WORKFLOW_PREFIX, BillingSignalPayload } from './billing-workflow.ts';
import { DOMAIN_WORKFLOW_PREFIX, DomainSignalPayload, DomainStartPayload } from './domain-workflow.ts';
import { DeliveryWorkflowPayload, WEBHOOK_DELIVERY_WORKFLOW_PREFIX } from './webhook-delivery-workflow.ts';

const message = <K extends string, P extends TSchema>(kind: K, workflowPrefix: string, payload: P) => Type.Object({
  kind: Type.Literal(kind),
  workflow_id: Type.String({ pattern: `^${workflowPrefix}.+` }),
  payload,
});
export const outboxVariants = {
  start_domain: message('start_domain', DOMAIN_WORKFLOW_PREFIX, DomainStartPayload),
  signal_domain: message('signal_domain', DOMAIN_WORKFLOW_PREFIX, DomainSignalPayload),
  start_delivery: message('start_delivery', WEBHOOK_DELIVERY_WORKFLOW_PREFIX, DeliveryWorkflowPayload),
  retry_delivery: message('retry_delivery', WEBHOOK_DELIVERY_WORKFLOW_PREFIX, DeliveryWorkflowPayload),
  // billing/<org id>: signal-with-start of the organization's billing workflow (migration 009).
  signal_billing: message('signal_billing', BILLING_WORKFLOW_PREFIX, BillingSignalPayload),
};
export const OutboxMessage = Type.Union([outboxVariants.start_domain, outboxVariants.signal_domain, outboxVariants.start_delivery, outboxVariants.retry_delivery, outboxVariants.signal_billing]);
export type OutboxMessage = Static<typeof OutboxMessage>;
export type OutboxKind = OutboxMessage['kind'];
export type OutboxPayload<K extends OutboxKind> = Extract<OutboxMessage, { kind: K }>['payload'];
