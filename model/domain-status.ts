// The domain lifecycle as data: which statuses exist, which moves are allowed, and which event
// each move emits. The API, the workflow activities and the CLI all go through `canTransition`.

export const domainStatuses = ['pending_dns', 'pending_certificate', 'active', 'suspended', 'deleting', 'deleted', 'failed'] as const;
export type DomainStatus = (typeof domainStatuses)[number];

/** Polling stops at these in the widget (decisions.md). */
export const widgetTerminalStatuses: readonly DomainStatus[] = ['active', 'failed', 'deleted', 'suspended'];

const allowed: Record<DomainStatus, readonly DomainStatus[]> = {
  pending_dns: ['pending_certificate', 'failed', 'suspended', 'deleting'],
  pending_certificate: ['active', 'pending_dns', 'failed', 'suspended', 'deleting'],
  active: ['pending_certificate', 'suspended', 'deleting'],
  // Resuming returns to the start of the pipeline; the workflow then skips what is still valid.
  suspended: ['pending_dns', 'deleting'],
  failed: ['pending_dns', 'deleting'],
  deleting: ['deleted'],
  deleted: [],
};

export function canTransition(from: DomainStatus, to: DomainStatus): boolean {
  return allowed[from].includes(to);
}

export const eventKinds = [
  'hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
  'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken',
] as const;
export type EventKind = (typeof eventKinds)[number];

/** The event a move into `to` emits (null: the move is internal and not announced). */
export function eventForTransition(from: DomainStatus, to: DomainStatus): EventKind | null {
  switch (to) {
    case 'pending_certificate': return from === 'pending_dns' ? 'hostname.verified' : null;
    case 'active': return 'hostname.active';
    case 'failed': return 'hostname.failed';
    case 'suspended': return 'hostname.suspended';
    case 'deleting': return 'hostname.deleting';
    case 'deleted': return 'hostname.deleted';
    default: return null;
  }
}

/** Statuses that count toward active_hostnames (the spec excludes deleting and suspended). */
export const billableStatuses: readonly DomainStatus[] = ['pending_dns', 'pending_certificate', 'active'];
