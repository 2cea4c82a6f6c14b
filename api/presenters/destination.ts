import type { Static } from 'typebox';
import type { DestinationRow } from '../../db/repositories/destinations.ts';
import type { Destination } from '../schemas/destinations.ts';

export function presentDestination(d: DestinationRow): Static<typeof Destination> {
  return { id: d.id, url: d.url, host: d.host, port: d.port as 443 | 8443, created_at: d.created_at, updated_at: d.updated_at };
}
