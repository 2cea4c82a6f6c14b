// What HAProxy serves, as the agent last read or changed it, with the indexes that keep one change
// as cheap at 100,000 hostnames as at 10 (served-index.ts) and the domain each hostname was last
// seen with. Every runtime change goes through the agent, so between two reads of HAProxy's own
// view this record is exact (full-reconcile.ts says when it reads that view anyway).
import { parseRoute, type ServedHost } from './desired-diff.ts';
import { ServedIndex } from './served-index.ts';

export class ServedRecord {
  /** Hostname → what HAProxy serves for it. Replaced whole at boot (`replace`). */
  hosts = new Map<string, ServedHost>();
  readonly index = new ServedIndex();
  /** Every hostname → domain seen by this process (bandwidth of hosts removed since still counts). */
  readonly #domainByHost = new Map<string, string>();

  /** A whole new record (boot, adoption of a running HAProxy); the indexes are rebuilt. */
  replace(hosts: Map<string, ServedHost>): void {
    this.hosts = hosts;
    this.reindex();
  }

  /** Rebuilds the indexes after hosts were set directly (the staged boot adds the rest so). */
  reindex(): void {
    for (const [h, v] of this.hosts) { const d = v.route && parseRoute(v.route)?.domainId; if (d) this.#domainByHost.set(h, d); }
    this.index.rebuild(this.hosts);
  }

  /** One host's new state; undefined, or neither a route nor a listed certificate: not served. */
  set(hostname: string, after: ServedHost | undefined): void {
    const before = this.hosts.get(hostname);
    const served = after && (after.route !== null || after.inCrtList) ? after : undefined;
    if (served) this.hosts.set(hostname, served); else this.hosts.delete(hostname);
    this.index.note(hostname, before, served);
    const d = served?.route ? parseRoute(served.route)?.domainId : undefined;
    if (d) this.#domainByHost.set(hostname, d);
  }

  /** Remembers that `hostname` belongs to `domainId` (a change that carries no route yet). */
  link(domainId: string, hostname: string): void {
    this.#domainByHost.set(hostname, domainId);
    this.index.link(domainId, hostname);
  }

  /** The domain of a served host, from its route or (no route) what was seen before; '' if none. */
  domainOfServed(hostname: string, route: string | null | undefined): string {
    return (route && parseRoute(route)?.domainId) || this.#domainByHost.get(hostname) || '';
  }

  /** The domain a hostname was last seen with (served now or not), null if never. */
  domainOfHost(hostname: string): string | null {
    const route = this.hosts.get(hostname)?.route;
    return this.#domainByHost.get(hostname) ?? (route ? parseRoute(route)?.domainId ?? null : null);
  }

  /** Hosts with a route (what the heartbeat reports as serving). */
  servingCount(): number {
    return this.index.servingCount();
  }
}
