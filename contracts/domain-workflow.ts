// The domain workflow's contract with the rest of the system: its id, what starts it, the signals
// the outbox carries to it, and the state it reports. db/, activities/ and the API import these
// from here; this module imports nothing of ours but model/, so it is safe everywhere (the
// workflow bundle takes its types only).
import { Type, type Static } from 'typebox';
import type { DomainStatus } from '../model/domain-status.ts';

// Workflow ids are the dedup scope: one workflow per domain, ever. A repeated start (API retry,
// outbox re-dispatch, reconciler) finds the running one and is a no-op.
export const DOMAIN_WORKFLOW_PREFIX = 'domain/';

export function domainWorkflowId(domainId: string): string {
  return `${DOMAIN_WORKFLOW_PREFIX}${domainId}`;
}

/** The domain id in a `domain/<id>` workflow id. */
export function domainIdOfWorkflow(workflowId: string): string {
  return workflowId.slice(DOMAIN_WORKFLOW_PREFIX.length);
}

/** Where a domain stands: its status and the row's sequence number (a move's guard). */
export interface DomainState { status: DomainStatus; seq: number }

/**
 * What the outbox carries to a domain's workflow. `verify`: check DNS now (the API's verify).
 * `deployed`: an edge now serves the domain's newest certificate (the edge's report).
 * `delete`, `suspend`, `resume`: lifecycle requests, delivered in the order they were made.
 * `certificate`: the customer's own certificate was put in place or removed (issue 22, part B):
 * look at the domain's current certificate now.
 */
export const DomainSignalName = Type.Enum(['verify', 'deployed', 'delete', 'suspend', 'resume', 'certificate']);
export type DomainSignalName = Static<typeof DomainSignalName>;

/**
 * Signals that only say "look now": any number of them pending is worth one, so the outbox keeps
 * at most one of each pending per domain, and they never hold back a lifecycle signal behind them
 * (db/repositories/workflow-outbox.ts).
 */
export const WAKE_UP_SIGNALS: readonly DomainSignalName[] = ['verify', 'deployed', 'certificate'];

/** Outbox payload of a `start_domain` row: what starting the workflow needs. */
export const DomainStartPayload = Type.Object({
  domainId: Type.String({ minLength: 1 }),
  organizationId: Type.String({ minLength: 1 }),
  hostname: Type.String({ minLength: 1 }),
  /** Whether the hostname is a registrable domain (fixed at creation; absent on older starts). */
  isApex: Type.Optional(Type.Boolean()),
});
export type DomainStartPayload = Static<typeof DomainStartPayload>;

/** Outbox payload of a `signal_domain` row (`reason` only for `suspend`). */
export const DomainSignalPayload = Type.Object({
  signal: DomainSignalName,
  reason: Type.Optional(Type.String()),
});
export type DomainSignalPayload = Static<typeof DomainSignalPayload>;

export interface DomainWorkflowInput extends DomainStartPayload {
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
  /** True once a move step said zero-downtime moves are off here (no challenge zone configured). */
  movesOff?: boolean;
  /** `custom`: the customer's own, in place (absent: managed, and in carries of older runs). */
  certificate: { id: string; notBefore: number; notAfter: number; custom?: boolean } | null;
  /** Signals received but not yet acted on (`deployed`, `certificate` are absent in carries of older runs). */
  pending: { verify: boolean; delete: boolean; suspend: string | null; resume: boolean; deployed?: boolean; certificate?: boolean };
}
