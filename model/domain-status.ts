// The domain lifecycle as data: which statuses exist, the named transitions between them, and the
// event each announces. This table is the one place that says how a domain moves: every writer
// (the domain workflow, naming it for the activity that commits it, and the API's delete) names a
// transition from it, and db/repositories/domains.ts applies one only from the statuses listed.

export const domainStatuses = ['pending_dns', 'pending_certificate', 'active', 'suspended', 'deleting', 'deleted', 'failed'] as const;
export type DomainStatus = (typeof domainStatuses)[number];

/** Polling stops at these in the widget (decisions.md). */
export const widgetTerminalStatuses: readonly DomainStatus[] = ['active', 'failed', 'deleted', 'suspended'];

export const eventKinds = [
  'hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
  'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken',
  // A vendor changed the domain (PATCH /v1/domains/{id}, issue 23); not a status move.
  'hostname.updated',
  // Not transitions: the certificate lifecycle announces these (db/repositories/certificate-lifecycle.ts).
  'hostname.certificate_renewed', 'hostname.certificate_expiring', 'hostname.certificate_failed',
] as const;
export type EventKind = (typeof eventKinds)[number];

export interface DomainTransition {
  /** Where the transition may start; from anywhere else it is refused (`not_allowed`). */
  readonly from: readonly DomainStatus[];
  readonly to: DomainStatus;
  /** The event it announces (null: internal, not announced). */
  readonly event: EventKind | null;
}

const live = ['pending_dns', 'pending_certificate', 'active', 'suspended', 'failed'] as const satisfies readonly DomainStatus[];

export const domainTransitions = {
  /** A DNS check found the records right (the verify fast path commits it with the check). */
  dns_verified: { from: ['pending_dns'], to: 'pending_certificate', event: 'hostname.verified' },
  /** DNS no longer points here when the certificate is about to be ordered: wait for DNS again. */
  dns_lost: { from: ['pending_certificate'], to: 'pending_dns', event: null },
  /** A certificate is stored and no edge has to serve it first (HOSTGATE_EDGE_DEPLOYMENT=skip). */
  certificate_issued: { from: ['pending_certificate'], to: 'active', event: 'hostname.active' },
  /** A live edge serves the stored certificate ("active means served"). */
  certificate_deployed: { from: ['pending_certificate'], to: 'active', event: 'hostname.active' },
  /** No correct DNS after 14 days, or the CA refused too often. */
  gave_up: { from: ['pending_dns', 'pending_certificate'], to: 'failed', event: 'hostname.failed' },
  /** An operator or billing suspended the domain; reversible with `resume`. */
  suspend: { from: ['pending_dns', 'pending_certificate', 'active'], to: 'suspended', event: 'hostname.suspended' },
  /** Back to the start of the pipeline; the workflow skips what is still valid. */
  resume: { from: ['suspended'], to: 'pending_dns', event: null },
  /** A failed domain starts over on verify or resume. */
  retry: { from: ['failed'], to: 'pending_dns', event: null },
  /** `DELETE /v1/domains/{id}` (or the workflow finishing a delete it was signalled). */
  delete: { from: live, to: 'deleting', event: 'hostname.deleting' },
  /** Tokens and key material removed: the end. */
  deletion_finished: { from: ['deleting'], to: 'deleted', event: 'hostname.deleted' },
} as const satisfies Record<string, DomainTransition>;

export type DomainTransitionName = keyof typeof domainTransitions;
export const domainTransitionNames = Object.keys(domainTransitions) as DomainTransitionName[];

/** Whether `move` may start from `from`. */
export function canTransition(from: DomainStatus, move: DomainTransitionName): boolean {
  return (domainTransitions[move].from as readonly DomainStatus[]).includes(from);
}

/** Statuses that count toward active_hostnames (the spec excludes deleting and suspended). */
export const billableStatuses: readonly DomainStatus[] = ['pending_dns', 'pending_certificate', 'active'];
