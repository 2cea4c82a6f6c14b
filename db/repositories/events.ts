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

/** Appends an event to the outbox inside the caller's transaction; the webhooks fan-out reads it. */
export async function appendEvent(tx: Pick<DatabaseTransactionConnection, 'query'>, organizationId: string, kind: EventKind, data: HostnameEventData): Promise<string> {
  const id = newId('event');
  await tx.query(sql.unsafe`
    insert into events (id, organization_id, kind, domain_id, data)
    values (${id}, ${organizationId}, ${kind}, ${data.id}, ${sql.jsonb(data as never)})`);
  return id;
}
