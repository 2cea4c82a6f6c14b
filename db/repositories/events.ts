import type { DatabaseTransactionConnection } from 'slonik';
import type { EventKind } from '../../model/domain-status.ts';
import { newId } from '../ids.ts';
import { sql } from '../pool.ts';

export interface HostnameEventData {
  id: string;
  hostname: string;
  status: string;
  destination_id: string;
  external_customer_id: string | null;
  /** The vendor's metadata (issue 23); null when none is set. */
  metadata: Record<string, string> | null;
  /** `hostname.updated` only: the fields that changed. */
  changes?: string[];
}

/** What certificate events (renewed, expiring, failed) say about the certificate. */
export interface CertificateEventFacts extends HostnameEventData {
  certificate: { serial: string; issuer: string; source: 'managed' | 'custom'; not_before: string; not_after: string; renews_at: string };
  /** hostname.certificate_expiring: 14 or 3. */
  days_left?: number;
  /** hostname.certificate_failed: why the renewal fails. */
  problem?: { code: string; message: string };
}

/** Appends an event to the outbox inside the caller's transaction; the webhooks fan-out reads it. */
export async function appendEvent(tx: Pick<DatabaseTransactionConnection, 'query'>, organizationId: string, kind: EventKind, data: HostnameEventData | CertificateEventFacts): Promise<string> {
  const id = newId('event');
  await tx.query(sql.unsafe`
    insert into events (id, organization_id, kind, domain_id, data)
    values (${id}, ${organizationId}, ${kind}, ${data.id}, ${sql.jsonb(data as never)})`);
  return id;
}
