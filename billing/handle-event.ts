// The one path every provider event takes, whether it came from Stripe's webhook or from a button
// on the local provider's page: in one transaction, record the event id (a replay stops here),
// apply it to Postgres (what GET /usage shows changes at commit), and queue a signal to the
// organization's billing workflow, which owns what happens over time (period close, dunning).
import type { Db } from '../db/pool.ts';
import { billingRepository, snapshotOf, type ProviderName } from '../db/repositories/billing.ts';
import { workflowOutboxRepository } from '../db/repositories/workflow-outbox.ts';
import type { BillingEvent, BillingSignal } from '../model/billing-events.ts';
import { billingWorkflowId } from '../contracts/billing-workflow.ts';

export { billingWorkflowId };

export type HandledEvent =
  | { result: 'processed'; organizationId: string; outboxId: number }
  | { result: 'duplicate' }
  /** About a subscription we do not know: recorded, nothing to apply. */
  | { result: 'ignored' };

/** `searchAttributes: false` only where the Temporal server cannot index them (time-skipping tests). */
export async function handleBillingEvent(db: Db, provider: ProviderName, eventId: string, event: BillingEvent, options: { searchAttributes?: false } = {}): Promise<HandledEvent> {
  const billing = billingRepository(db);
  const outbox = workflowOutboxRepository(db);
  return db.transaction(async (tx) => {
    if (!(await billing.recordEvent(tx, provider, eventId, event.type))) return { result: 'duplicate' };
    const applied = await billing.applyEvent(tx, provider, event);
    if (!applied) return { result: 'ignored' };
    await billing.attributeEvent(tx, provider, eventId, applied.organizationId);
    const signal: BillingSignal = { eventId, event, subscription: snapshotOf(applied.subscription), ...(applied.duplicate ? { duplicate: applied.duplicate } : {}) };
    const outboxId = await outbox.enqueue(tx, 'signal_billing', billingWorkflowId(applied.organizationId), { organizationId: applied.organizationId, signal, ...options });
    return { result: 'processed', organizationId: applied.organizationId, outboxId };
  });
}
